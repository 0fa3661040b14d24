package io.caravan.cli;

import java.io.PrintWriter;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.Map;

/**
 * What the process hands to every command: its output streams and its environment. Commands never read
 * {@code System.getenv()} or {@code System.out} themselves, so tests can run them in-process.
 */
public record Context(PrintWriter out, PrintWriter err, Map<String, String> env) {

    public Context {
        env = Map.copyOf(env);
    }

    /** The first non-blank value among the given environment variables, or {@code null}. */
    public String env(String... names) {
        for (String name : names) {
            String value = env.get(name);
            if (value != null && !value.isBlank()) {
                return value;
            }
        }
        return null;
    }

    /** Local time zone for printed dates: {@code TZ} from the environment (as Go reads it), else the JVM's. */
    public ZoneId zone() {
        String tz = env("TZ");
        if (tz != null) {
            try {
                return ZoneId.of(tz);
            } catch (DateTimeException ignored) {
                // Not a zone ID Java knows (e.g. a POSIX rule string); fall back to the JVM default.
            }
        }
        return ZoneId.systemDefault();
    }
}
