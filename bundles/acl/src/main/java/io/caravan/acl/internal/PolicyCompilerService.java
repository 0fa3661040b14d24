package io.caravan.acl.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import io.caravan.acl.AclPolicies;
import io.caravan.acl.PolicyRules;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.PolicyCompiler;
import org.osgi.service.component.annotations.Component;

/** The policy language as the service the servers' ACL endpoints and resolvers use. */
@Component(service = PolicyCompiler.class)
public final class PolicyCompilerService implements PolicyCompiler {

    @Override
    public void check(String rules) {
        AclPolicies.parse(rules);
    }

    @Override
    public Acl compile(Collection<String> rules) {
        List<PolicyRules> parsed = new ArrayList<>(rules.size());
        rules.forEach(r -> parsed.add(AclPolicies.parse(r)));
        return AclPolicies.compile(parsed);
    }
}
