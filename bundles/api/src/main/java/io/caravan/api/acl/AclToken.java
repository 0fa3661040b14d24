package io.caravan.api.acl;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.caravan.api.model.GoTime;
import io.caravan.api.model.NanoDuration;

/**
 * Nomad's {@code ACLToken}: the accessor ID names it, the secret ID is the credential. A {@code management} token may
 * do everything; a {@code client} token what its policies and roles grant. {@code expirationTime} null: never expires.
 */
public record AclToken(String accessorId, String secretId, String name, String type, List<String> policies,
                       List<RoleLink> roles, boolean global, @GoTime Instant createTime,
                       @GoTime Instant expirationTime, @NanoDuration Duration expirationTtl, long createIndex,
                       long modifyIndex) {
    public static final String CLIENT = "client";
    public static final String MANAGEMENT = "management";

    public AclToken {
        policies = policies == null ? List.of() : List.copyOf(policies);
        roles = roles == null ? List.of() : List.copyOf(roles);
    }

    /** A role a token holds, by ID and (as the API shows it) name. */
    public record RoleLink(String id, String name) {}

    public boolean isManagement() {
        return MANAGEMENT.equals(type);
    }

    public boolean expired(Instant now) {
        return expirationTime != null && !now.isBefore(expirationTime);
    }

    public AclToken withIndexes(long create, long modify) {
        return new AclToken(accessorId, secretId, name, type, policies, roles, global, createTime, expirationTime,
                expirationTtl, create, modify);
    }

    /** The token as lists show it: without its secret. */
    public Stub stub() {
        return new Stub(accessorId, name, type, policies, roles, global, createTime, expirationTime, createIndex,
                modifyIndex);
    }

    /** Nomad's {@code ACLTokenListStub}. */
    public record Stub(String accessorId, String name, String type, List<String> policies, List<RoleLink> roles,
                       boolean global, @GoTime Instant createTime, @GoTime Instant expirationTime,
                       long createIndex, long modifyIndex) {}
}
