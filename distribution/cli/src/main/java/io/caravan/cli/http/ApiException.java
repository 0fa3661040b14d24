package io.caravan.cli.http;

/** A failed API call, with a message fit to print after the command's "Error ...: " prefix. */
public final class ApiException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Whether no agent answered at all (refused, unresolved, timed out), as opposed to an agent's error. */
    private final boolean unreachable;

    public ApiException(String message) {
        this(message, false);
    }

    public ApiException(String message, boolean unreachable) {
        super(message);
        this.unreachable = unreachable;
    }

    /** No agent answered: commands that can work without one ({@code job validate}) fall back to local work. */
    public boolean unreachable() {
        return unreachable;
    }
}
