package io.caravan.consensus.internal;

import java.net.InetSocketAddress;

/** One voting member of the Raft group: its Raft peer id (the server's node id) and the {@code host:port} it binds. */
record Peer(String id, String address) {

    Peer {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("Raft peer id must not be empty");
        }
        socketAddress(address); // validates
    }

    /** Parses {@code id=host:port}, the form of a {@code raft.peers} entry. */
    static Peer parse(String spec) {
        int eq = spec.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("raft.peers entry '" + spec + "' is not id=host:port");
        }
        return new Peer(spec.substring(0, eq).trim(), spec.substring(eq + 1).trim());
    }

    String host() {
        return address.substring(0, address.lastIndexOf(':'));
    }

    int port() {
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }

    static InetSocketAddress socketAddress(String address) {
        int colon = address == null ? -1 : address.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("Raft address '" + address + "' is not host:port");
        }
        try {
            int port = Integer.parseInt(address.substring(colon + 1));
            return InetSocketAddress.createUnresolved(address.substring(0, colon), port);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Raft address '" + address + "' is not host:port", e);
        }
    }
}
