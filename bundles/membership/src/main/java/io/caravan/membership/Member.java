package io.caravan.membership;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.Collections;

/**
 * One server in the gossip pool, as this server currently sees it.
 *
 * @param name the member name, {@code <node name>.<region>} as Nomad names server members
 * @param address the serf address others reach it on, {@code host:port}
 * @param status alive, failed or left, in this server's view
 * @param tags the member's tags ({@code role}, {@code region}, {@code dc}, {@code id}, {@code rpc_addr}, {@code port},
 *        {@code raft_addr}, {@code expect}, {@code bootstrap}, {@code build}, {@code vsn}, {@code raft_vsn}); unmodifiable
 * @param incarnation the member's own heartbeat counter; only the member itself increments it
 */
public record Member(String name, String address, Status status, Map<String, String> tags, long incarnation) {

    public Member {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(status, "status");
        tags = tags == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(tags));
    }

    /** The tag {@code key}, or {@code null}. */
    public String tag(String key) {
        return tags.get(key);
    }

    /**
     * The member's RPC address, {@code host:port} ({@code [v6]:port}), from its {@code rpc_addr} and {@code port} tags:
     * the one address by which the API and clients name a server (never its Raft address). Empty when it has none.
     */
    public Optional<String> rpcAddress() {
        String host = tag("rpc_addr");
        String port = tag("port");
        if (host == null || host.isBlank() || port == null || port.isBlank()) {
            return Optional.empty();
        }
        return Optional.of((host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port);
    }

    /** This member with another status. */
    public Member withStatus(Status newStatus) {
        return new Member(name, address, newStatus, tags, incarnation);
    }

    /** A member's status. Nomad prints it lower-case: {@link #wireName()}. */
    public enum Status {
        ALIVE, FAILED, LEFT;

        /** {@code alive}, {@code failed} or {@code left}, as Nomad prints a serf member status. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
