package io.caravan.plugin.api.driver;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A command running inside a task's environment ({@code alloc exec}), its streams connected to the caller. With a
 * TTY, {@link #stdout()} carries the terminal's output (stderr included) and {@link #stderr()} is empty at once.
 */
@ConsumerType
public interface ExecSession {

    /** What the command reads; closing it is end of input. */
    OutputStream stdin();

    InputStream stdout();

    InputStream stderr();

    /** Whether the command runs on a terminal. */
    boolean tty();

    /** Sets the terminal's size (the command sees SIGWINCH); ignored without a TTY. */
    void resize(int rows, int columns);

    /** Completes with the command's exit code once it has exited (128 + N after signal N). */
    CompletionStage<Integer> exitCode();

    /** Kills the command (the caller went away). Idempotent. */
    void kill();
}
