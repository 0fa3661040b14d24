package io.caravan.server.internal;

import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** The ACL part of PID {@code io.caravan.server} (the agent's {@code acl} block, as the servers apply it). */
@ObjectClassDefinition(name = "Caravan server: ACLs")
@interface AclConfig {
    boolean acl_enabled() default false;

    /** The agent's data directory: {@code server/acl-bootstrap-reset} in it allows a second bootstrap. */
    String data_dir() default "";

    long acl_token_min_ttl_ms() default 60_000;

    long acl_token_max_ttl_ms() default 86_400_000;
}
