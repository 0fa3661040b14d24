package io.caravan.membership.internal;

/** {@code host:port}; IPv6 hosts are kept without brackets and bracketed again by {@link #toString()}. */
record HostPort(String host, int port) {

    /**
     * Parses {@code host}, {@code host:port}, {@code [v6]}, {@code [v6]:port} or a bare IPv6 literal.
     *
     * @throws IllegalArgumentException when empty or the port is not a number in 0..65535
     */
    static HostPort parse(String text, int defaultPort) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty address");
        }
        String s = text.trim();
        String host;
        String port = null;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("unterminated [ in address " + text);
            }
            host = s.substring(1, close);
            String rest = s.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw new IllegalArgumentException("bad address " + text);
                }
                port = rest.substring(1);
            }
        } else {
            int first = s.indexOf(':');
            if (first >= 0 && first == s.lastIndexOf(':')) {
                host = s.substring(0, first);
                port = s.substring(first + 1);
            } else {
                host = s; // no colon, or a bare IPv6 literal
            }
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("no host in address " + text);
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '.' || c == '-' || c == '_' || c == ':' || c == '%')) {
                throw new IllegalArgumentException("bad host in address " + text);
            }
        }
        int p = defaultPort;
        if (port != null) {
            try {
                p = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad port in address " + text);
            }
            if (p < 0 || p > 65535) {
                throw new IllegalArgumentException("bad port in address " + text);
            }
        }
        return new HostPort(host, p);
    }

    HostPort withPort(int newPort) {
        return new HostPort(host, newPort);
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
