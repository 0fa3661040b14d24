package io.caravan.discover.dns.internal;

/** {@code host:port}, with IPv6 literals in brackets as Nomad's join addresses are written. */
final class HostPort {
    static final int DEFAULT_PORT = 4647;

    private HostPort() {
    }

    static String format(String host, int port) {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }

    /** The {@code port} argument, or 4647 (Nomad's RPC port). */
    static int port(String value) {
        if (value == null || value.isEmpty()) {
            return DEFAULT_PORT;
        }
        try {
            int port = Integer.parseInt(value);
            if (port >= 1 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("discover-dns: port must be 1-65535, got \"" + value + "\"");
    }
}
