package io.caravan.tls;

import java.nio.file.Path;

/** A TLS file that cannot be used: the message names the file and says why. */
public final class TlsException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient Path file;

    public TlsException(Path file, String reason) {
        super(file == null ? reason : file + ": " + reason);
        this.file = file;
    }

    public TlsException(Path file, String reason, Throwable cause) {
        this(file, reason);
        initCause(cause);
    }

    /** The file at fault, or null when the fault is not one file's. */
    public Path file() {
        return file;
    }
}
