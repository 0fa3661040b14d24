package io.caravan.cli.http;

/** A failed API call, with a message fit to print after the command's "Error ...: " prefix. */
public final class ApiException extends Exception {
    private static final long serialVersionUID = 1L;

    public ApiException(String message) {
        super(message);
    }
}
