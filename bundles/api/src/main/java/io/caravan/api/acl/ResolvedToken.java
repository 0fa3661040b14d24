package io.caravan.api.acl;

import java.time.Instant;
import java.util.List;

import io.caravan.api.model.GoTime;

/**
 * What a server tells a client agent about a secret ({@value #METHOD}): the token's accessor, name and type, and the
 * rules of every policy it holds (through roles too), so that the client compiles and caches the same {@link Acl}. For
 * an empty secret, the {@code anonymous} policy's rules.
 */
public record ResolvedToken(String accessorId, String name, String type, List<String> rules,
                            @GoTime Instant expirationTime) {
    public static final String METHOD = "ACL.ResolveToken";

    public ResolvedToken {
        rules = rules == null ? List.of() : List.copyOf(rules);
    }

    /** The request: a token's secret ID, empty for an anonymous call. */
    public record Request(String secretId) {}
}
