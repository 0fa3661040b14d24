package io.caravan.cli.command;

/** Flags or arguments that do not fit together; printed with a pointer to the command's help, exit 1. */
final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
