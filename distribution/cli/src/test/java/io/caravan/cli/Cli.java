package io.caravan.cli;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Runs {@link Main} in-process with captured streams and a given environment. */
final class Cli {

    record Result(int code, String out, String err) {
        List<String> outLines() {
            return out.lines().toList();
        }

        List<String> errLines() {
            return err.lines().toList();
        }
    }

    private static final Function<List<String>, Integer> NO_AGENT = args -> {
        throw new AssertionError("the agent must not be started here");
    };

    private Cli() {
    }

    static Result run(Map<String, String> env, String... args) {
        return run(env, NO_AGENT, args);
    }

    static Result run(Map<String, String> env, Function<List<String>, Integer> agent, String... args) {
        return run(null, env, agent, args);
    }

    /** With {@code input} as standard input (prompts, {@code -} file arguments). */
    static Result withInput(String input, Map<String, String> env, String... args) {
        return run(new BufferedReader(new StringReader(input)), env, NO_AGENT, args);
    }

    /** With {@code dir} as the working directory (commands that write files, such as {@code tls ca create}). */
    static Result inDir(Path dir, Map<String, String> env, String... args) {
        return run(dir, null, env, NO_AGENT, args);
    }

    private static Result run(BufferedReader in, Map<String, String> env, Function<List<String>, Integer> agent,
            String... args) {
        return run(null, in, env, agent, args);
    }

    private static Result run(Path dir, BufferedReader in, Map<String, String> env,
            Function<List<String>, Integer> agent, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(dir, in, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env, agent, args);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
