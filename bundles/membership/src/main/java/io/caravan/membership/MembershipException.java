package io.caravan.membership;

/** A join that reached nobody; the message names each address and why it failed. */
public class MembershipException extends Exception {
    private static final long serialVersionUID = 1L;

    public MembershipException(String message) {
        super(message);
    }

    public MembershipException(String message, Throwable cause) {
        super(message, cause);
    }
}
