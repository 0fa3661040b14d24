package io.caravan.api.acl;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Turns the secret a call presented into its {@link Identity}: on servers from the replicated ACL tables (compiled
 * policies cached until those tables change), on client agents through the servers. Registered only when ACLs are
 * enabled; the API refuses calls that need one while none is registered.
 */
@ProviderType
public interface AclResolver {

    /**
     * @param secret the token's secret ID; null or empty for an anonymous call
     * @throws io.caravan.api.CaravanException {@code PERMISSION_DENIED} with "ACL token not found" or "ACL token
     *                                         expired"; {@code BAD_REQUEST} for a malformed secret
     */
    Identity resolve(String secret);
}
