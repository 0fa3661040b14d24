package io.caravan.http;

import java.util.Objects;
import java.util.function.Function;

import io.caravan.api.acl.AclRule;

/**
 * What a route serves, declared once with it: Nomad's endpoint name ({@code Job.Register}), the ACL rule the
 * dispatcher checks before the handler runs, and where the request names its namespace (the {@code namespace} query
 * parameter unless the endpoint says otherwise, e.g. a job's own {@code Namespace} in a register body).
 */
public record ApiEndpoint(String name, AclRule rule, Function<ApiRequest, String> namespace, Routing routing,
                          boolean tokenInHandshake) {

    /** Where a call is served. */
    public enum Routing {
        /**
         * By the agent that received it, from its own state. A write (any method but {@code GET}) on a server first
         * waits for that state to hold every write the cluster had acknowledged ({@link WriteBarrier}), so that its
         * checks (the job, node or deployment it names exists) never see a follower's older copy.
         */
        LOCAL,
        /**
         * By the agent that received it, on its own: an operation on the agent itself ({@code agent join}, a reload, a
         * client's own allocations), served at once, without a look at the cluster's state, even with no leader.
         */
        AGENT,
        /**
         * By the Raft leader: a server that is not forwards the call there (after authenticating it), so a write is
         * validated against the state it will be applied to, not a follower's possibly older copy.
         */
        LEADER
    }

    /** An endpoint whose token comes with the request only. */
    public ApiEndpoint(String name, AclRule rule, Function<ApiRequest, String> namespace, Routing routing) {
        this(name, rule, namespace, routing, false);
    }

    public ApiEndpoint {
        Objects.requireNonNull(routing, "routing");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(namespace, "namespace");
        if (!name.matches("[A-Z][A-Za-z]*\\.[A-Z][A-Za-z]*")) {
            throw new IllegalArgumentException("an endpoint is named Group.Method: " + name);
        }
    }

    public static ApiEndpoint of(String name, AclRule rule) {
        return new ApiEndpoint(name, rule, r -> r.options().namespace(), Routing.LOCAL);
    }

    /** The same endpoint, its namespace read by {@code namespace} (falling back to the query's when that gives null). */
    public ApiEndpoint namespacedBy(Function<ApiRequest, String> namespaceOf) {
        return new ApiEndpoint(name, rule, r -> {
            String ns = namespaceOf.apply(r);
            return ns == null || ns.isEmpty() ? r.options().namespace() : ns;
        }, routing, tokenInHandshake);
    }

    /** The same endpoint, an operation on the agent itself ({@link Routing#AGENT}). */
    public ApiEndpoint agentLocal() {
        return new ApiEndpoint(name, rule, namespace, Routing.AGENT, tokenInHandshake);
    }

    /** The same endpoint, served by the leader. */
    public ApiEndpoint onLeader() {
        return new ApiEndpoint(name, rule, namespace, Routing.LEADER, tokenInHandshake);
    }

    /**
     * The same endpoint, a WebSocket that may take its token in its first message, as Nomad's {@code ws_handshake}
     * (browsers cannot set headers on a WebSocket). With ACLs on, a call with {@code ws_handshake=true} and no token
     * reaches the handler unchecked ({@link ApiRequest#authenticationDeferred()}); the handler then checks the
     * message's token ({@link ApiRequest#authenticate}) against this rule before it does anything.
     */
    public ApiEndpoint withTokenInHandshake() {
        return new ApiEndpoint(name, rule, namespace, routing, true);
    }
}
