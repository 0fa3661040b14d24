package io.caravan.plugin.api.discover;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A parsed go-discover string: {@code provider=aws tag_key=nomad tag_value="my servers"}.
 *
 * <p>Syntax: whitespace-separated {@code key=value} pairs. Keys are case-insensitive and returned lower-case. A value
 * may be wrapped in double quotes to hold spaces; inside quotes {@code \"} and {@code \\} are escapes. A value may be
 * empty ({@code key=} or {@code key=""}). When a key repeats, the last value wins.
 *
 * @param provider the value of {@code provider}, never blank
 * @param args the remaining pairs in the order written, without {@code provider}; unmodifiable
 */
public record DiscoverString(String provider, Map<String, String> args) {

    public DiscoverString {
        if (provider == null || provider.isBlank()) {
            throw new IllegalArgumentException("provider must not be blank");
        }
        args = Collections.unmodifiableMap(new LinkedHashMap<>(args));
    }

    /**
     * Parses a {@code retry_join} entry.
     *
     * @return empty when {@code text} is not a discover string (it has no {@code provider=} pair, e.g. a plain
     *         {@code 10.0.0.1:4647}), which callers treat as an address
     * @throws IllegalArgumentException when it has {@code provider=} but is malformed: a word without {@code =}, an
     *         empty key, an unterminated quote, text glued to a closing quote, or an empty provider
     */
    public static Optional<DiscoverString> parse(String text) {
        if (text == null || !text.toLowerCase(Locale.ROOT).contains("provider=")) {
            return Optional.empty();
        }
        Map<String, String> pairs = new LinkedHashMap<>();
        int i = 0;
        int n = text.length();
        while (true) {
            while (i < n && Character.isWhitespace(text.charAt(i))) {
                i++;
            }
            if (i >= n) {
                break;
            }
            int keyStart = i;
            while (i < n && text.charAt(i) != '=' && !Character.isWhitespace(text.charAt(i))) {
                i++;
            }
            if (i >= n || text.charAt(i) != '=') {
                throw new IllegalArgumentException("discover string: expected key=value at \""
                        + text.substring(keyStart, i) + "\" in: " + text);
            }
            if (i == keyStart) {
                throw new IllegalArgumentException("discover string: empty key at offset " + i + " in: " + text);
            }
            String key = text.substring(keyStart, i).toLowerCase(Locale.ROOT);
            i++; // '='
            StringBuilder value = new StringBuilder();
            if (i < n && text.charAt(i) == '"') {
                i++;
                boolean closed = false;
                while (i < n) {
                    char c = text.charAt(i++);
                    if (c == '"') {
                        closed = true;
                        break;
                    }
                    if (c == '\\' && i < n && (text.charAt(i) == '"' || text.charAt(i) == '\\')) {
                        c = text.charAt(i++);
                    }
                    value.append(c);
                }
                if (!closed) {
                    throw new IllegalArgumentException("discover string: unterminated quote for " + key
                            + " in: " + text);
                }
                if (i < n && !Character.isWhitespace(text.charAt(i))) {
                    throw new IllegalArgumentException("discover string: text after the closing quote of " + key
                            + " in: " + text);
                }
            } else {
                while (i < n && !Character.isWhitespace(text.charAt(i))) {
                    value.append(text.charAt(i++));
                }
            }
            pairs.remove(key); // last wins, at its own position
            pairs.put(key, value.toString());
        }
        String provider = pairs.remove("provider");
        if (provider == null) {
            // "provider=" occurred only inside a value, e.g. tag_value="provider=x": not a discover string.
            return Optional.empty();
        }
        if (provider.isBlank()) {
            throw new IllegalArgumentException("discover string: empty provider in: " + text);
        }
        return Optional.of(new DiscoverString(provider, pairs));
    }

    /** The argument {@code key} (lower-case), or {@code fallback} when absent. */
    public String arg(String key, String fallback) {
        return args.getOrDefault(key, fallback);
    }
}
