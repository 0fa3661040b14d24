package io.caravan.plugin.api.driver;

/** The outcome of a command run inside a task's environment. */
public record ExecResult(int exitCode, byte[] stdout, byte[] stderr) {
}
