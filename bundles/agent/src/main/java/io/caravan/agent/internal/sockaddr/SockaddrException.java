package io.caravan.agent.internal.sockaddr;

/** A go-sockaddr template could not be parsed or evaluated; the message says which function failed and why. */
public class SockaddrException extends Exception {
    private static final long serialVersionUID = 1L;

    public SockaddrException(String message) {
        super(message);
    }

    public SockaddrException(String message, Throwable cause) {
        super(message, cause);
    }
}
