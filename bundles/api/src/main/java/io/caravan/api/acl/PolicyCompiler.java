package io.caravan.api.acl;

import java.util.Collection;

import org.osgi.annotation.versioning.ProviderType;

/** Nomad's ACL policy language, as a service (the acl bundle): checks a policy's rules and compiles policies. */
@ProviderType
public interface PolicyCompiler {

    /**
     * Parses {@code rules} (HCL or JSON) and throws when they are not a valid policy.
     *
     * @throws io.caravan.api.CaravanException {@code BAD_REQUEST} naming the problem and its {@code line:column}
     */
    void check(String rules);

    /** What holding all of these policies (each one's rules, as stored) allows; none: nothing. */
    Acl compile(Collection<String> rules);
}
