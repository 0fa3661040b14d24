package io.caravan.api;

import java.util.Objects;
import java.util.Optional;

/**
 * An expected failure with a code and, for invalid input, the path of the offending field. The message is what
 * the user reads: it never contains a stack trace.
 */
public final class CaravanException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final String field;

    public CaravanException(ErrorCode code, String message) {
        this(code, null, message, null);
    }

    public CaravanException(ErrorCode code, String field, String message, Throwable cause) {
        super(message, cause);
        this.code = Objects.requireNonNull(code, "code");
        this.field = field;
    }

    /** A 400 for one bad field: the message reads {@code field: reason}. */
    public static CaravanException invalid(String field, String reason) {
        return new CaravanException(ErrorCode.BAD_REQUEST, field, field + ": " + reason, null);
    }

    public static CaravanException badRequest(String message) {
        return new CaravanException(ErrorCode.BAD_REQUEST, message);
    }

    public static CaravanException notFound(String message) {
        return new CaravanException(ErrorCode.NOT_FOUND, message);
    }

    public static CaravanException notImplemented(String message) {
        return new CaravanException(ErrorCode.NOT_IMPLEMENTED, message);
    }

    public ErrorCode code() {
        return code;
    }

    public Optional<String> field() {
        return Optional.ofNullable(field);
    }
}
