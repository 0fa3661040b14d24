package io.caravan.api.acl;

import java.util.List;

/** Nomad's {@code ACLRole}: a named set of policies that tokens can hold by reference. */
public record AclRole(String id, String name, String description, List<PolicyLink> policies, long createIndex,
                      long modifyIndex) {

    public AclRole {
        policies = policies == null ? List.of() : List.copyOf(policies);
    }

    /** A policy a role holds, by name. */
    public record PolicyLink(String name) {}

    public AclRole withIndexes(long create, long modify) {
        return new AclRole(id, name, description, policies, create, modify);
    }
}
