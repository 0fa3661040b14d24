package io.caravan.agent.internal.sockaddr;

/** Interface flags, in the order (and with the names) Go's {@code net.Flags} prints them. */
public enum IfFlag {
    UP("up"),
    BROADCAST("broadcast"),
    LOOPBACK("loopback"),
    POINT_TO_POINT("pointtopoint"),
    MULTICAST("multicast"),
    RUNNING("running");

    private final String goName;

    IfFlag(String goName) {
        this.goName = goName;
    }

    /** The name Go uses, e.g. {@code pointtopoint}; the {@code flags} attribute joins these with {@code |}. */
    public String goName() {
        return goName;
    }
}
