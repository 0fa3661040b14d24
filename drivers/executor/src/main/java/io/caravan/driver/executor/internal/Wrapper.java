package io.caravan.driver.executor.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The command line that runs a task:
 *
 * <pre>setsid /bin/sh -c SCRIPT caravan-task PIDFILE EXITFILE command args…</pre>
 *
 * {@code setsid} gives the task its own session and process group (killed as a whole on stop). The wrapper shell
 * runs the task as a <em>foreground</em> child and writes its {@code $?} to the exit file, so an agent that is not
 * the wrapper's parent any more (restart) still learns the exit code. The child writes its own pid and then
 * {@code exec}s the command, so the pid is the task's. A background job ({@code cmd &}) would not do: a
 * non-interactive shell starts those with SIGINT and SIGQUIT ignored. {@code env --default-signal} also undoes
 * signals ignored by whoever started the agent ({@code nohup}, a shell's {@code &}), which {@code sh} cannot.
 * Resident cost: one {@code dash} per task, well under 2 MB.
 */
final class Wrapper {
    static final String NAME = "caravan-task";
    private static final String SCRIPT = """
            p=$1 e=$2; shift 2
            %s -c 'echo $$ > "$0" && exec %s "$@"' "$p" "$@"
            echo $? > "$e"
            """;

    private final String setsid;
    private final String shell;
    private final String script;

    private Wrapper(String setsid, String shell, String execPrefix) {
        this.setsid = setsid;
        this.shell = shell;
        this.script = SCRIPT.formatted(shell, execPrefix);
    }

    /**
     * Finds the tools by absolute path: the task's own PATH (its environment is the wrapper's) may not have them.
     */
    static Wrapper onThisHost() {
        String shell = HostTools.require("sh");
        String env = HostTools.require("env");
        String execPrefix = resetsSignals(env) ? env + " --default-signal" : "";
        return new Wrapper(HostTools.require("setsid"), shell, execPrefix);
    }

    String shell() {
        return shell;
    }

    List<String> command(Path pidFile, Path exitFile, List<String> task) {
        List<String> argv = new ArrayList<>(List.of(setsid, shell, "-c", script, NAME, pidFile.toString(),
                exitFile.toString()));
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
