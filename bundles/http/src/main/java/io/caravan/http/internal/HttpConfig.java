package io.caravan.http.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** PID {@code io.caravan.http}. Every key applies at once on change; the listener itself is Felix HTTP's. */
@ObjectClassDefinition(name = "Caravan HTTP API")
@interface HttpConfig {
    @AttributeDefinition(description = "The region this agent answers for when a request names none")
    String region() default "global";

    @AttributeDefinition(description = "Nomad's http_api_response_headers, each written \"Name: value\"")
    String[] response_headers() default {};

    @AttributeDefinition(description = "Path of the OSGi web console")
    String console_root() default "/ui/console";

    @AttributeDefinition(description = "Let the web console answer requests that do not come from this host")
    boolean console_allow_remote() default false;

    @AttributeDefinition(description = "Whether this agent is a server; a client-only agent forwards API calls it has "
            + "no route for to its servers")
    boolean server_enabled() default false;

    /** 2 MiB: twice Nomad's default job_max_source_size (1 MB), half the 4 MiB at which a Raft write failed. */
    @AttributeDefinition(description = "Largest API request body in bytes; a larger one is answered 413")
    long max_request_body() default 2L * 1024 * 1024;

    @AttributeDefinition(description = "host:port of this agent's own HTTP listener, for calls forwarded to it")
    String http_addr() default "127.0.0.1:4646";

    @AttributeDefinition(description = "Whether calls need ACL tokens (the agent's acl.enabled)")
    boolean acl_enabled() default false;

    /**
     * Where the API listens ({@code host:port}): a connector of the API's own, opened once this servlet is live in the
     * container ({@link ApiConnector}); blank: none (Felix's own connector only, as in tests).
     */
    String bind_addr() default "";
}
