package io.caravan.driver.executor.internal;

import io.caravan.plugin.api.driver.ExitResult;

/**
 * Reads an exit status as {@code sh} reports it in {@code $?}: 0–128 is an exit code, 128+N an exit by signal N.
 * (An exit code above 128 from the program itself looks the same; sh cannot tell them apart.) Like Nomad, an exit
 * by signal keeps 128+N as its exit code and also sets the signal.
 */
final class ShellExit {
    private static final int SIGNAL_BASE = 128;
    private static final int MAX_SIGNAL = 64;

    private ShellExit() {
    }

    static ExitResult of(int status) {
        int signal = status > SIGNAL_BASE && status <= SIGNAL_BASE + MAX_SIGNAL ? status - SIGNAL_BASE : 0;
        return new ExitResult(status, signal, false, null);
    }

    static ExitResult killed() {
        return of(SIGNAL_BASE + 9);
    }

    static ExitResult lost() {
        return new ExitResult(-1, 0, false, "the task's exit status was lost: its wrapper ended without recording it");
    }
}
