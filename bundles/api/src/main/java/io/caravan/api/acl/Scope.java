package io.caravan.api.acl;

/** The policy blocks without namespaces, by their name in a policy. */
public enum Scope {
    NODE("node"), AGENT("agent"), OPERATOR("operator"), QUOTA("quota"), PLUGIN("plugin");

    private final String policyName;

    Scope(String policyName) {
        this.policyName = policyName;
    }

    /** The block's name in a policy: {@code node { policy = "read" }}. */
    public String policyName() {
        return policyName;
    }
}
