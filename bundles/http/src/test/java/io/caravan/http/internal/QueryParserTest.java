package io.caravan.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.caravan.api.CaravanException;
import io.caravan.http.QueryOptions;
import org.junit.jupiter.api.Test;

class QueryParserTest {

    private static QueryOptions parse(Map<String, String> query) {
        return QueryParser.parse(query::get, "global", new java.util.Random(7));
    }

    @Test
    void defaultsMatchNomad() {
        QueryOptions o = parse(Map.of());
        assertEquals("global", o.region());
        assertEquals("default", o.namespace());
        assertEquals(0, o.minIndex());
        assertEquals(Duration.ofMinutes(5), o.maxWait());
        assertEquals(false, o.allowStale());
    }

    @Test
    void readsBlockingAndPagingParameters() {
        QueryOptions o = parse(Map.of("index", "42", "wait", "10s", "stale", "", "per_page", "5",
                "next_token", "7.abc", "reverse", "true", "namespace", "*", "region", "eu"));
        assertEquals(42, o.minIndex());
        assertTrue(o.maxWait().compareTo(Duration.ofSeconds(10)) >= 0
                && o.maxWait().compareTo(Duration.ofMillis(10625)) <= 0, "10s plus at most a sixteenth");
        assertTrue(o.allowStale());
        assertEquals(5, o.perPage());
        assertEquals("7.abc", o.nextToken());
        assertTrue(o.reverse());
        assertEquals("*", o.namespace());
        assertEquals("eu", o.region());
    }

    @Test
    void waitIsCappedAtFiveMinutes() {
        assertEquals(Duration.ofMinutes(5), parse(Map.of("wait", "1h")).maxWait());
    }

    @Test
    void blockingQueriesGetUpToASixteenthMoreWait() {
        for (int seed = 0; seed < 50; seed++) {
            Duration wait = QueryParser.parse(Map.of("index", "5", "wait", "16s")::get, "global",
                    new java.util.Random(seed)).maxWait();
            assertTrue(wait.compareTo(Duration.ofSeconds(16)) >= 0 && wait.compareTo(Duration.ofSeconds(17)) <= 0,
                    wait.toString());
        }
        assertEquals(Duration.ofSeconds(16), parse(Map.of("wait", "16s")).maxWait(), "no jitter without an index");
    }

    @Test
    void badValuesGiveNomadsMessages() {
        assertEquals("Invalid index", error(Map.of("index", "x")));
        assertEquals("Invalid wait time", error(Map.of("wait", "10")));
        assertEquals("Expect `true` or `false` for `stale` query string parameter", error(Map.of("stale", "yes")));
        assertEquals("Expect a number for `per_page` query string parameter", error(Map.of("per_page", "x")));
    }

    private static String error(Map<String, String> query) {
        CaravanException e = assertThrows(CaravanException.class, () -> parse(query));
        assertEquals(400, e.code().httpStatus());
        return e.getMessage();
    }

    @Test
    void tokenPrefersNomadHeaderThenBearer() {
        assertEquals(Optional.of("abc"), WireRequest.token(" abc ", "Bearer other"));
        assertEquals(Optional.of("xyz"), WireRequest.token(null, "bEaReR xyz trailing"));
        assertEquals(Optional.empty(), WireRequest.token("", "Basic Zm9v"));
        assertEquals(Optional.empty(), WireRequest.token(null, null));
    }

    @Test
    void anIndexPastWhatAStoreReachesBlocksUntilTheWaitEnds() {
        // Nomad's index is a uint64: 2^63 and 2^64-1 are valid and must block, not wrap negative and answer at once.
        for (String index : List.of("9223372036854775807", "9223372036854775808", "18446744073709551615")) {
            QueryOptions o = parse(Map.of("index", index, "wait", "16s"));
            assertEquals(Long.MAX_VALUE, o.minIndex(), index);
            assertTrue(o.maxWait().compareTo(Duration.ofSeconds(16)) >= 0, "jitter is added as for any blocking query");
        }
        assertEquals(0, parse(Map.of("index", "0")).minIndex());
        assertEquals(7, parse(Map.of("index", "007")).minIndex());
    }

    @Test
    void anIndexThatIsNotAUint64IsRefusedAsNomadDoes() {
        for (String index : List.of("18446744073709551616", "99999999999999999999999", "-1", "+5", " 5", "5 ", "1e3",
                "0x10", "1_000", "abc", "٣")) {
            assertEquals("Invalid index", error(Map.of("index", index)), index);
        }
    }

    @Test
    void queryStringsAreReadWithoutTouchingTheBody() {
        Map<String, List<String>> q = WireRequest.parseQuery("type=client&type=server&pretty&prefix=a%20b+c&x=%zz");
        assertEquals(List.of("client", "server"), q.get("type"));
        assertEquals(List.of(""), q.get("pretty"));
        assertEquals(List.of("a b c"), q.get("prefix"));
        assertEquals(List.of("%zz"), q.get("x"));
        assertTrue(WireRequest.parseQuery(null).isEmpty());
    }
}
