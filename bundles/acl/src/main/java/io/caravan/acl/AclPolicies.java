package io.caravan.acl;

import java.util.Collection;

import io.caravan.acl.internal.CompiledAcl;
import io.caravan.acl.internal.PolicyDecoder;
import io.caravan.api.acl.Acl;

/** Nomad's ACL policy language: parse a policy's rules, compile a token's policies into an {@link Acl}. */
public final class AclPolicies {

    private AclPolicies() {
    }

    /**
     * Parses a policy's rules, HCL or JSON (JSON when the text starts with <code>{</code>), as Nomad does when a
     * policy is written: strictly.
     *
     * @throws io.caravan.api.CaravanException {@code BAD_REQUEST}, {@code Failed to parse ACL policy: line:column:
     *                                         what is wrong}, for a syntax error, an unknown block or attribute, a
     *                                         duplicate block, a bad name, policy or capability, or no rules at all
     */
    public static PolicyRules parse(String rules) {
        return PolicyDecoder.decode(rules);
    }

    /**
     * The authorizer of a token holding these policies (its own and its roles'). No policies: nothing is allowed.
     * The result is immutable, safe to share and cache, and its checks allocate nothing.
     */
    public static Acl compile(Collection<PolicyRules> policies) {
        return CompiledAcl.compile(policies);
    }
}
