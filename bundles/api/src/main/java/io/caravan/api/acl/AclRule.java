package io.caravan.api.acl;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What an endpoint requires of its caller, declared once with the endpoint and checked by the dispatcher before the
 * handler runs. Rules are data: they can be listed, described, and asked for a policy that grants them (so the
 * enforcement matrix is generated from the endpoints, not written beside them).
 */
public sealed interface AclRule {

    /** Whether {@code caller} may make the call, {@code namespace} being the one the request targets. */
    boolean allows(Identity caller, String namespace);

    /** Short and stable, for listings and errors: {@code namespace:submit-job}, {@code agent:write}. */
    String describe();

    /**
     * A policy (Nomad's HCL) that grants this rule in {@code namespace}, empty when no policy can (management only,
     * servers, nodes) or none is needed (public).
     */
    Optional<String> grantingPolicy(String namespace);

    /** Anyone, authenticated or not: health, leader, regions, bootstrap and login. */
    AclRule PUBLIC = new Public();
    /** Any caller that presented a valid token (its own token, whoami). */
    AclRule AUTHENTICATED = new Authenticated();
    /**
     * Management, or a caller asking for an object of its own (its token, a policy or role it holds): the dispatcher
     * lets every caller through and the handler, which has the object, decides.
     */
    AclRule OWN = new Own();
    /** A management token only. */
    AclRule MANAGEMENT = new Management();
    /** Servers only (proved by the cluster's gossip key on the RPC connection). */
    AclRule SERVER = new Server();
    /** Client nodes, by their node secret (checked by the handler, which has the node's record). */
    AclRule NODE = new ClientNode();

    static AclRule namespace(String capability) {
        return new NamespaceCapability(capability);
    }

    /** A variables capability ({@code read}, {@code write}, {@code list}, {@code destroy}); see {@link Variable}. */
    static Variable variable(String capability) {
        return new Variable(capability);
    }

    /** A node pool capability on the pool the request names (the endpoint's {@code namespacedBy} gives the pool). */
    static AclRule nodePool(String capability) {
        return new NodePoolCapability(capability);
    }

    static AclRule scope(Scope scope, Access access) {
        return new ScopeAccess(scope, access);
    }

    static AclRule anyOf(AclRule... rules) {
        return new AnyOf(List.of(rules));
    }

    /** Every one of {@code rules} (a node pool's nodes: the pool's {@code read} and {@code node:read}). */
    static AclRule allOf(AclRule... rules) {
        return new AllOf(List.of(rules));
    }

    record Public() implements AclRule {
        @Override
        public boolean allows(Identity caller, String namespace) {
            return true;
        }

        @Override
        public String describe() {
            return "public";
        }

        @Override
        public Optional<String> grantingPolicy(String namespace) {
            return Optional.empty();
        }
    }

    record Authenticated() implements AclRule {
        @Override
        public boolean allows(Identity caller, String namespace) {
            return caller.kind() != Identity.Kind.ANONYMOUS || caller.acl().isManagement();
        }

        @Override
        public String describe() {
            return "authenticated";
        }

        @Override
        public Optional<String> grantingPolicy(String namespace) {
            return Optional.of("node { policy = \"deny\" }");
        }
    }

    record Own() implements AclRule {
        @Override
        public boolean allows(Identity caller, String namespace) {
            return true;
        }

        @Override
        public String describe() {
            return "own-or-management";
        }

        @Override
        public Optional<String> grantingPolicy(String namespace) {
            return Optional.empty();
        }
    }

    record Management() implements AclRule {
        @Override
        public boolean allows(Identity caller, String namespace) {
            return caller.acl().isManagement();
        }

        @Override
        public String describe() {
            return "management";
        }

        @Override
        public Optional<String> grantingPolicy(String namespace) {
            return Optional.empty();
        }
    }

    record Server() implements AclRule {
        @Override
        public boolean allows(Identity caller, String namespace) {
            return caller.kind() == Identity.Kind.SERVER;
        }

        @Override
        public String describe() {
            return "server";
        }

        @Override
        public Optional<String> grantingPolicy(String namespace) {
            return Optional.empty();
        }
    }

    record ClientNode() implements AclRule {
        @Override
        public boolean allows(Identity caller, String namespace) {
            return caller.kind() == Identity.Kind.NODE || caller.kind() == Identity.Kind.SERVER;
        }

        @Override
        public String describe() {
            return "node-secret";
        }

        @Override
        public Optional<String> grantingPolicy(String namespace) {
            return Optional.empty();
        }
    }

    /**
     * A namespace capability in the request's namespace; for {@code namespace=*}, in at least one namespace (the
     * handler then filters what it returns with {@link Acl#allowNamespace}).
     */
    record NamespaceCapability(String capability) implements AclRule {
        public NamespaceCapability {
            if (!Capability.ALL.contains(capability) || Capability.DENY.equals(capability)) {
                throw new IllegalArgumentException("unknown namespace capability " + capability);
            }
        }

        @Override
        public boolean allows(Identity caller, String namespace) {
            Acl acl = caller.acl();
            return "*".equals(namespace) ? acl.allowAnyNamespace(capability)
                    : acl.allowNamespace(namespace, capability);
        }

        @Override
        public String describe() {
            return "namespace:" + capability;
        }

        @Override
        public Optional<String> grantingPolicy(String namespace) {
            return Optional.of("namespace \"" + namespace + "\" { capabilities = [\"" + capability + "\"] }");
        }
    }

    /**
     * A capability on a variable path ({@code variables { path "..." }} of a namespace rule). The dispatcher knows
     * the namespace but not the path, so it lets through whoever has some variables rule there (Nomad's
     * {@code AllowVariableSearch}), and the handler checks each path with {@link #allows(Identity, String, String)}
     * (a list filters its rows so).
     */
    record Variable(String capability) implements AclRule {
        public Variable {
            if (!List.of("read", "write", "list", "destroy").contains(capability)) {
                throw new IllegalArgumentException("unknown variables capability " + capability);
            }
        }

        /** Nomad's loose check: some variables rule of the namespace grants something; the path comes later. */
        @Override
        public boolean allows(Identity caller, String namespace) {
            return caller.acl().allowVariableSearch(namespace);
        }

        /** Whether {@code caller} holds the capability on {@code path} in {@code namespace}. */
        public boolean allows(Identity caller, String namespace, String path) {
            return caller.acl().allowVariable(namespace, path, capability);
        }

        @Override
        public String describe() {
            return "variables:" + capability;
        }

        @Override
        public Optional<String> grantingPolicy(String namespace) {
            return Optional.of("namespace \"" + namespace + "\" { variables { path \"*\" { capabilities = [\""
                    + capability + "\"] } } }");
        }
    }

    /**
     * A capability ({@code read}, {@code write}, {@code delete}) on a node pool. Endpoints that take it name the pool
     * where others name a namespace, so the dispatcher hands the pool here as {@code namespace}.
     */
    record NodePoolCapability(String capability) implements AclRule {
        public NodePoolCapability {
            if (!List.of("read", "write", "delete").contains(capability)) {
                throw new IllegalArgumentException("unknown node pool capability " + capability);
            }
        }

        @Override
        public boolean allows(Identity caller, String pool) {
            return caller.acl().allowNodePool(pool, capability);
        }

        @Override
        public String describe() {
            return "node_pool:" + capability;
        }

        /** Every pool's: the caller of a listing does not know which pool a request will name. */
        @Override
        public Optional<String> grantingPolicy(String namespace) {
            return Optional.of("node_pool \"*\" { capabilities = [\"" + capability + "\"] }");
        }
    }

    record ScopeAccess(Scope scope, Access access) implements AclRule {
        public ScopeAccess {
            if (access == Access.NONE || access == Access.DENY) {
                throw new IllegalArgumentException("a rule requires read, list or write, not " + access);
            }
            if (access == Access.LIST && scope != Scope.PLUGIN) {
                throw new IllegalArgumentException("only plugin policies have a list level");
            }
        }

        @Override
        public boolean allows(Identity caller, String namespace) {
            return caller.acl().allow(scope, access);
        }

        @Override
        public String describe() {
            return scope.policyName() + ":" + access.name().toLowerCase(Locale.ROOT);
        }

        @Override
        public Optional<String> grantingPolicy(String namespace) {
            return Optional.of(scope.policyName() + " { policy = \"" + access.name().toLowerCase(Locale.ROOT)
                    + "\" }");
        }
    }

    /** Any one of several rules (Nomad lets, for example, node:read or a namespace capability read a node's allocs). */
    record AnyOf(List<AclRule> rules) implements AclRule {
        public AnyOf {
            rules = List.copyOf(rules);
            if (rules.isEmpty()) {
                throw new IllegalArgumentException("anyOf needs at least one rule");
            }
        }

        @Override
        public boolean allows(Identity caller, String namespace) {
            for (AclRule rule : rules) {
                if (rule.allows(caller, namespace)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public String describe() {
            return String.join("|", rules.stream().map(AclRule::describe).toList());
        }

        @Override
        public Optional<String> grantingPolicy(String namespace) {
            for (AclRule rule : rules) {
                Optional<String> policy = rule.grantingPolicy(namespace);
                if (policy.isPresent()) {
                    return policy;
                }
            }
            return Optional.empty();
        }
    }

    record AllOf(List<AclRule> rules) implements AclRule {
        public AllOf {
            rules = List.copyOf(rules);
            if (rules.isEmpty()) {
                throw new IllegalArgumentException("allOf needs at least one rule");
            }
        }

        @Override
        public boolean allows(Identity caller, String namespace) {
            for (AclRule rule : rules) {
                if (!rule.allows(caller, namespace)) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String describe() {
            return String.join("&", rules.stream().map(AclRule::describe).toList());
        }

        /** The policies of every rule, one after the other; empty when one of them has none. */
        @Override
        public Optional<String> grantingPolicy(String namespace) {
            StringBuilder all = new StringBuilder();
            for (AclRule rule : rules) {
                Optional<String> policy = rule.grantingPolicy(namespace);
                if (policy.isEmpty()) {
                    return Optional.empty();
                }
                all.append(all.length() == 0 ? "" : "\n").append(policy.get());
            }
            return Optional.of(all.toString());
        }
    }
}
