package io.caravan.driver.executor.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The command line that runs a task:
 *
 * <pre>setsid env --default-signal /bin/sh -c SCRIPT caravan-task PIDFILE EXITFILE command args…</pre>
 *
 * {@code setsid} gives the task its own session and process group (killed as a whole on stop). {@code env
 * --default-signal} undoes signals ignored by whoever started the agent ({@code nohup}, a shell's {@code &}): the
 * JVM passes those on, and {@code sh} cannot reset them. The wrapper shell runs the task as a <em>foreground</em>
 * child and writes its {@code $?} to the exit file, so an agent that is not the wrapper's parent any more
 * (restart) still learns the exit code. The child writes its own pid and then {@code exec}s the command, so the
 * pid is the task's (a signal that comes before the {@code exec} ends the child just as it would the command). A
 * background job ({@code cmd &}) would not do: a non-interactive shell starts those with SIGINT and SIGQUIT
 * ignored. Resident cost: one {@code dash} per task, well under 2 MB.
 */
final class Wrapper {
    static final String NAME = "caravan-task";
    private static final String SCRIPT = """
            p=$1 e=$2; shift 2
            %s -c 'echo $$ > "$0" && exec "$@"' "$p" "$@"
            echo $? > "$e"
            """;

    private final List<String> prefix;
    private final String shell;
    private final String script;

    private Wrapper(List<String> prefix, String shell) {
        this.prefix = List.copyOf(prefix);
        this.shell = shell;
        this.script = SCRIPT.formatted(shell);
    }

    /**
     * Finds the tools by absolute path: the task's own PATH (its environment is the wrapper's) may not have them.
     */
    static Wrapper onThisHost() {
        String shell = HostTools.require("sh");
        String env = HostTools.require("env");
        List<String> prefix = new ArrayList<>(List.of(HostTools.require("setsid")));
        if (resetsSignals(env)) {
            prefix.addAll(List.of(env, "--default-signal"));
        }
        prefix.add(shell);
        return new Wrapper(prefix, shell);
    }

    String shell() {
        return shell;
    }

    List<String> command(Path pidFile, Path exitFile, List<String> task) {
        List<String> argv = new ArrayList<>(prefix);
        argv.addAll(List.of("-c", script, NAME, pidFile.toString(), exitFile.toString()));
        argv.addAll(task);
        return argv;
    }

    /** GNU coreutils 8.31+ has it; BusyBox does not. */
    private static boolean resetsSignals(String env) {
        try {
            Process p = new ProcessBuilder(env, "--default-signal", "true")
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
