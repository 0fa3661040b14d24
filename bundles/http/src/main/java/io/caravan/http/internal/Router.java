package io.caravan.http.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.caravan.http.ApiEndpoint;
import io.caravan.http.AsyncHandler;

/**
 * An immutable table of routes, matched segment by segment. Literal segments beat parameters, which beat a
 * rest-of-path parameter, so {@code /v1/job/{id}/allocations} wins over {@code /v1/job/{id*}}: Nomad's suffix
 * precedence, made explicit.
 */
final class Router {
    /** The outcome of a lookup: a handler and its parameters, a path known under other methods, or nothing. */
    sealed interface Match permits Found, WrongMethod, NotFound {}

    record Found(ApiEndpoint endpoint, AsyncHandler handler, Map<String, String> params) implements Match {}

    record WrongMethod() implements Match {}

    record NotFound() implements Match {}

    record Route(String method, Pattern pattern, ApiEndpoint endpoint, AsyncHandler handler, int ranking,
                 String source) {}

    private final List<Route> routes;

    private Router(List<Route> routes) {
        this.routes = routes;
    }

    static Router of(List<Route> routes) {
        List<Route> sorted = new ArrayList<>(routes);
        sorted.sort((a, b) -> {
            int bySpecificity = a.pattern().compareSpecificity(b.pattern());
            return bySpecificity != 0 ? bySpecificity : Integer.compare(b.ranking(), a.ranking());
        });
        return new Router(List.copyOf(sorted));
    }

    Match find(String method, String path) {
        List<String> segments = Pattern.split(path);
        boolean pathKnown = false;
        for (Route route : routes) {
            Map<String, String> params = route.pattern().match(segments);
            if (params == null) {
                continue;
            }
            if (route.method().equals(method)) {
                return new Found(route.endpoint(), route.handler(), params);
            }
            pathKnown = true;
        }
        return pathKnown ? new WrongMethod() : new NotFound();
    }

    /** Every route, most specific first: what the agent serves, for listings and the enforcement matrix. */
    List<Route> routes() {
        return routes;
    }

    /**
     * Routes that lose to another with the same method, pattern and ranking, for a warning: that is ambiguous.
     * A lower-ranked route losing to a higher-ranked one is an intended override and not listed.
     */
    List<String> conflicts() {
        Map<String, Route> winners = new HashMap<>();
        List<String> lost = new ArrayList<>();
        for (Route route : routes) {
            String key = route.method() + " " + route.pattern();
            Route winner = winners.putIfAbsent(key, route);
            if (winner != null && winner.ranking() == route.ranking()) {
                lost.add(key + " from " + route.source() + " (kept the one from " + winner.source() + ")");
            }
        }
        return lost;
    }

    /** A parsed route pattern. */
    static final class Pattern {
        private final String text;
        private final List<String> segments;

        Pattern(String text) {
            this.text = Objects.requireNonNull(text);
            this.segments = split(text);
            for (int i = 0; i < segments.size(); i++) {
                String s = segments.get(i);
                if (s.endsWith("*}") && i != segments.size() - 1) {
                    throw new IllegalArgumentException("a {name*} parameter must be last: " + text);
                }
            }
        }

        /** Segments of a raw request path, each percent-decoded after splitting (so {@code %2F} stays inside one). */
        static List<String> split(String path) {
            List<String> out = new ArrayList<>();
            for (String s : path.split("/", -1)) {
                if (!s.isEmpty()) {
                    out.add(decode(s));
                }
            }
            return Collections.unmodifiableList(out);
        }

        /** Percent-decoding as in a URL path: UTF-8, and {@code +} is a plus (unlike form encoding). */
        static String decode(String segment) {
            if (segment.indexOf('%') < 0) {
                return segment;
            }
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(segment.length());
            for (int i = 0; i < segment.length(); i++) {
                char c = segment.charAt(i);
                if (c == '%' && i + 2 < segment.length()
                        && Character.digit(segment.charAt(i + 1), 16) >= 0
                        && Character.digit(segment.charAt(i + 2), 16) >= 0) {
                    bytes.write(Integer.parseInt(segment.substring(i + 1, i + 3), 16));
                    i += 2;
                } else {
                    byte[] raw = String.valueOf(c).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    bytes.write(raw, 0, raw.length);
                }
            }
            return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        }

        /** The parameters if {@code path} matches, else {@code null}. */
        Map<String, String> match(List<String> path) {
            Map<String, String> params = new LinkedHashMap<>();
            for (int i = 0; i < segments.size(); i++) {
                String s = segments.get(i);
                if (isRest(s)) {
                    if (i >= path.size()) {
                        return null;
                    }
                    params.put(name(s), String.join("/", path.subList(i, path.size())));
                    return params;
                }
                if (i >= path.size()) {
                    return null;
                }
                if (isParam(s)) {
                    params.put(name(s), path.get(i));
                } else if (!s.equals(path.get(i))) {
                    return null;
                }
            }
            return segments.size() == path.size() ? params : null;
        }

        /** Negative when this pattern must be tried before {@code other}. */
        int compareSpecificity(Pattern other) {
            int n = Math.min(segments.size(), other.segments.size());
            for (int i = 0; i < n; i++) {
                int c = Integer.compare(kind(segments.get(i)), kind(other.segments.get(i)));
                if (c != 0) {
                    return c;
                }
            }
            return Integer.compare(other.segments.size(), segments.size());
        }

        private static int kind(String segment) {
            return isRest(segment) ? 2 : isParam(segment) ? 1 : 0;
        }

        private static boolean isParam(String s) {
            return s.startsWith("{") && s.endsWith("}");
        }

        private static boolean isRest(String s) {
            return isParam(s) && s.endsWith("*}");
        }

        private static String name(String s) {
            return s.substring(1, s.length() - (isRest(s) ? 2 : 1));
        }

        @Override
        public String toString() {
            return text;
        }
    }
}
