package io.caravan.tls;

/**
 * The agent's TLS, one service for every listener and dialler (HTTP API, RPC, Raft): the settings fixed at start
 * (turning TLS on or off is a restart) and the identity whose certificates a reload swaps in place.
 */
public interface AgentTls {
    TlsSettings settings();

    /** The agent's certificate and trusted CA, swapped by reloads; null when neither http nor rpc is on. */
    ReloadableTls identity();

    /** The identity when {@code tls.http} is on, else null. */
    default ReloadableTls http() {
        return settings().http() ? identity() : null;
    }

    /** The identity when {@code tls.rpc} is on, else null. */
    default ReloadableTls rpc() {
        return settings().rpc() ? identity() : null;
    }
}
