package io.caravan.driver.executor.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.caravan.plugin.api.driver.DriverException;

/**
 * Sends signals with the shell's {@code kill} builtin: Java can only send TERM and KILL itself, and tasks take any
 * signal Nomad allows ({@code kill_signal = "SIGUSR1"}).
 */
final class Kill {
    private static final long TIMEOUT_SECONDS = 10;

    private final String shell;

    Kill(String shell) {
        this.shell = shell;
    }

    /** {@code SIGTERM}, {@code term} and {@code TERM} all become {@code TERM}; numbers stay numbers. */
    static String signalName(String signal) {
        String name = signal.trim().toUpperCase(Locale.ROOT);
        return name.startsWith("SIG") ? name.substring(3) : name;
    }

    void process(long pid, String signal) throws DriverException {
        send(signal, Long.toString(pid));
    }

    /** Signals every process in the group, ignoring that there may be none left. */
    void group(long processGroup, String signal) {
        try {
            send(signal, "-" + processGroup);
        } catch (DriverException e) {
            // ESRCH: the group is already empty
        }
    }

    private void send(String signal, String target) throws DriverException {
        String name = signalName(signal);
        if (!name.matches("[A-Z0-9+-]+")) {
            throw new DriverException("invalid signal " + signal);
        }
        try {
            Process kill = new ProcessBuilder(shell, "-c", "kill -s \"$1\" -- \"$2\"", "kill", name, target)
                    .redirectErrorStream(true).start();
            kill.getOutputStream().close();
            byte[] output = kill.getInputStream().readAllBytes();
            if (!kill.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new DriverException("kill -s " + name + " " + target + " did not finish");
            }
            if (kill.exitValue() != 0) {
                throw new DriverException("kill -s " + name + " " + target + ": "
                        + new String(output, StandardCharsets.UTF_8).trim());
            }
        } catch (IOException e) {
            throw new DriverException("cannot send " + name + " to " + target, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DriverException("interrupted while sending " + name + " to " + target, e);
        }
    }
}
