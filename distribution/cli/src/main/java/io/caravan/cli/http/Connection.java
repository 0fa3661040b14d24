package io.caravan.cli.http;

/**
 * Where and as whom to talk to the agent.
 *
 * @param address base URL such as {@code http://127.0.0.1:4646}, without a trailing slash; {@code https://} means TLS
 * @param token   ACL secret sent as {@code X-Nomad-Token}, or {@code null}
 * @param region  sent as {@code ?region=} on every request, or {@code null}
 * @param tls     how to check the agent and present a client certificate over {@code https://}
 * @param namespace sent as {@code ?namespace=} on every request (as Nomad's API client does), or {@code null}
 */
public record Connection(String address, String token, String region, ClientTls tls, String namespace) {
    public static final String DEFAULT_ADDRESS = "http://127.0.0.1:4646";

    public Connection {
        address = normalize(address == null || address.isBlank() ? DEFAULT_ADDRESS : address.trim());
        token = blankToNull(token);
        region = blankToNull(region);
        tls = tls == null ? ClientTls.NONE : tls;
        namespace = blankToNull(namespace);
    }

    /** Without a namespace: the agent's default applies. */
    public Connection(String address, String token, String region, ClientTls tls) {
        this(address, token, region, tls, null);
    }

    public boolean https() {
        return address.regionMatches(true, 0, "https://", 0, "https://".length());
    }

    /** Nomad needs a scheme; "127.0.0.1:4646" is common enough in env files to accept as http. */
    private static String normalize(String address) {
        String url = address.contains("://") ? address : "http://" + address;
        while (url.endsWith("/")) {
            url = url.substring(0, url.length() - 1);
        }
        return url;
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }
}
