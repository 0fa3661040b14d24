package io.caravan.plugin.api.driver;

/** How a task exited: the exit code, the signal that ended it (0 if none), and whether it ran out of memory. */
public record ExitResult(int exitCode, int signal, boolean oomKilled, String error) {
    public boolean successful() {
        return exitCode == 0 && signal == 0 && !oomKilled && error == null;
    }
}
