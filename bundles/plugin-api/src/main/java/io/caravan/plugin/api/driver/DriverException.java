package io.caravan.plugin.api.driver;

/** A driver could not do what was asked; the message is shown in the task's events. */
public class DriverException extends Exception {
    private static final long serialVersionUID = 1L;

    public DriverException(String message) {
        super(message);
    }

    public DriverException(String message, Throwable cause) {
        super(message, cause);
    }
}
