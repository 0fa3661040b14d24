package io.caravan.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.Map;

/**
 * What the process hands to every command: its output streams, its environment, its input (for the few
 * confirmation prompts) and its working directory (where {@code tls ca create} and the like write their files).
 * Commands never read {@code System.getenv()}, {@code System.in} or {@code System.out} themselves, so tests can run
 * them in-process.
 */
public record Context(PrintWriter out, PrintWriter err, Map<String, String> env, BufferedReader in, Path dir) {

    public Context {
        env = Map.copyOf(env);
        in = in == null ? new BufferedReader(Reader.nullReader()) : in;
        dir = dir == null ? Path.of("") : dir;
    }

    /** A context in the process's working directory. */
    public Context(PrintWriter out, PrintWriter err, Map<String, String> env, BufferedReader in) {
        this(out, err, env, in, null);
    }

    /** A context without input: prompts read end-of-input. */
    public Context(PrintWriter out, PrintWriter err, Map<String, String> env) {
        this(out, err, env, null);
    }

    /** A file name as the user gave it, relative to the working directory. */
    public Path file(String name) {
        return dir.resolve(name);
    }

    /** Prints {@code question} and reads one line of answer, stripped; {@code null} at end of input. */
    public String ask(String question) throws IOException {
        out.print(question + " ");
        out.flush();
        String line = in.readLine();
        return line == null ? null : line.strip();
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
