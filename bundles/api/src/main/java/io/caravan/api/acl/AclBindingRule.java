package io.caravan.api.acl;

import java.time.Instant;

import io.caravan.api.model.GoTime;

/**
 * Nomad's {@code ACLBindingRule}: when a login's mapped claims match {@code selector} (a filter expression over
 * {@code value.*} and {@code list.*}), the token gets the role or policy {@code bindName} names (after
 * {@code ${value.x}} interpolation), or becomes a management token.
 */
public record AclBindingRule(String id, String description, String authMethod, String selector, String bindType,
                             String bindName, @GoTime Instant createTime, @GoTime Instant modifyTime,
                             long createIndex, long modifyIndex) {
    public static final String ROLE = "role";
    public static final String POLICY = "policy";
    public static final String MANAGEMENT = "management";

    public AclBindingRule {
        description = description == null ? "" : description;
        selector = selector == null ? "" : selector;
        bindName = bindName == null ? "" : bindName;
    }

    public AclBindingRule withIndexes(long create, long modify) {
        return new AclBindingRule(id, description, authMethod, selector, bindType, bindName, createTime, modifyTime,
                create, modify);
    }

    /** Nomad's {@code ACLBindingRuleListStub}. */
    public Stub stub() {
        return new Stub(id, description, authMethod, createIndex, modifyIndex);
    }

    public record Stub(String id, String description, String authMethod, long createIndex, long modifyIndex) {}
}
