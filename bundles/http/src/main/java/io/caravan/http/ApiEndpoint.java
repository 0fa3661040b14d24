package io.caravan.http;

import java.util.Objects;
import java.util.function.Function;

import io.caravan.api.acl.AclRule;

/**
 * What a route serves, declared once with it: Nomad's endpoint name ({@code Job.Register}), the ACL rule the
 * dispatcher checks before the handler runs, and where the request names its namespace (the {@code namespace} query
 * parameter unless the endpoint says otherwise, e.g. a job's own {@code Namespace} in a register body).
 */
public record ApiEndpoint(String name, AclRule rule, Function<ApiRequest, String> namespace) {

    public ApiEndpoint {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(namespace, "namespace");
        if (!name.matches("[A-Z][A-Za-z]*\\.[A-Z][A-Za-z]*")) {
            throw new IllegalArgumentException("an endpoint is named Group.Method: " + name);
        }
    }

    public static ApiEndpoint of(String name, AclRule rule) {
        return new ApiEndpoint(name, rule, r -> r.options().namespace());
    }

    /** The same endpoint, its namespace read by {@code namespace} (falling back to the query's when that gives null). */
    public ApiEndpoint namespacedBy(Function<ApiRequest, String> namespaceOf) {
        return new ApiEndpoint(name, rule, r -> {
            String ns = namespaceOf.apply(r);
            return ns == null || ns.isEmpty() ? r.options().namespace() : ns;
        });
    }
}
