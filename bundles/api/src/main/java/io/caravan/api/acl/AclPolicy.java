package io.caravan.api.acl;

/** Nomad's {@code ACLPolicy}: a named set of rules in Nomad's policy language (HCL or JSON), kept as written. */
public record AclPolicy(String name, String description, String rules, long createIndex, long modifyIndex) {

    public AclPolicy withIndexes(long create, long modify) {
        return new AclPolicy(name, description, rules, create, modify);
    }

    public Stub stub() {
        return new Stub(name, description, createIndex, modifyIndex);
    }

    /** Nomad's {@code ACLPolicyListStub}. */
    public record Stub(String name, String description, long createIndex, long modifyIndex) {}
}
