package io.caravan.http.internal;

import java.time.Duration;
import java.util.function.Function;
import java.util.random.RandomGenerator;

import io.caravan.api.CaravanException;
import io.caravan.api.GoDuration;
import io.caravan.http.QueryOptions;

/** Reads Nomad's common query parameters, with Nomad's error texts for bad values. */
final class QueryParser {
    private QueryParser() {
    }

    /**
     * @param param the first value of a query parameter, or null when absent
     * @param random source of the blocking-query jitter (injected so tests are deterministic)
     */
    static QueryOptions parse(Function<String, String> param, String defaultRegion, RandomGenerator random) {
        String region = orDefault(param.apply("region"), defaultRegion);
        String namespace = orDefault(param.apply("namespace"), QueryOptions.DEFAULT_NAMESPACE);

        long minIndex = 0;
        String index = param.apply("index");
        if (index != null && !index.isEmpty()) {
            minIndex = parseIndex(index);
        }

        Duration wait = Duration.ZERO;
        String waitText = param.apply("wait");
        if (waitText != null && !waitText.isEmpty()) {
            try {
                wait = GoDuration.parse(waitText);
            } catch (IllegalArgumentException e) {
                throw CaravanException.badRequest("Invalid wait time");
            }
        }
        if (wait.isNegative() || wait.isZero() || wait.compareTo(QueryOptions.MAX_WAIT) > 0) {
            wait = QueryOptions.MAX_WAIT;
        }
        if (minIndex > 0) {
            // Nomad's JitterFraction: up to wait/16 more, so equal waits spread out.
            wait = wait.plusNanos(random.nextLong(wait.toNanos() / 16 + 1));
        }

        boolean stale = false;
        String staleText = param.apply("stale");
        if (staleText != null) {
            if (staleText.isEmpty() || staleText.equals("true")) {
                stale = true;
            } else if (!staleText.equals("false")) {
                throw CaravanException.badRequest("Expect `true` or `false` for `stale` query string parameter");
            }
        }

        int perPage = 0;
        String perPageText = param.apply("per_page");
        if (perPageText != null && !perPageText.isEmpty()) {
            try {
                perPage = Integer.parseInt(perPageText);
            } catch (NumberFormatException e) {
                throw CaravanException.badRequest("Expect a number for `per_page` query string parameter");
            }
        }

        return new QueryOptions(region, namespace, minIndex, wait, stale, orDefault(param.apply("prefix"), ""),
                orDefault(param.apply("filter"), ""), perPage, orDefault(param.apply("next_token"), ""),
                "true".equals(param.apply("reverse")));
    }

    /**
     * Nomad's index is a uint64. Past {@code Long.MAX_VALUE} it is clamped there: no index this store reaches is
     * that high, so the query blocks until its wait ends, as Nomad's would.
     */
    static long parseIndex(String text) {
        if (!text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw CaravanException.badRequest("Invalid index"); // Go's ParseUint takes no sign, space or '_'
        }
        try {
            long index = Long.parseUnsignedLong(text);
            return index < 0 ? Long.MAX_VALUE : index;
        } catch (NumberFormatException e) {
            throw CaravanException.badRequest("Invalid index"); // more than 64 bits
        }
    }

    private static String orDefault(String value, String fallback) {
        return value == null || value.isEmpty() ? fallback : value;
    }
}
