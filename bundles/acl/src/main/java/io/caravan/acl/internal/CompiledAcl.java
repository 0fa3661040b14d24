package io.caravan.acl.internal;

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.caravan.acl.PolicyRules;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.Capability;
import io.caravan.api.acl.Scope;

/**
 * The authorizer compiled from a token's policies, with Nomad's semantics. Each rule's capabilities are a bit mask;
 * rules for the same name or glob merge (union, but a rule that denies leaves only {@code deny}, which grants
 * nothing). A check uses the rule for the exact name if there is one, else the matching glob whose stars cover the
 * fewest characters (ties go to the glob that sorts last, as in Nomad). Coarse scopes keep the highest level any
 * policy gives, {@code deny} above all. Immutable; checks allocate nothing.
 */
public final class CompiledAcl implements Acl {
    private static final Bits NAMESPACE = new Bits(Capability.ALL);
    private static final Bits HOST_VOLUME = new Bits(PolicyDecoder.HOST_VOLUME_CAPABILITIES);
    private static final Bits VARIABLE = new Bits(PolicyDecoder.VARIABLE_CAPABILITIES);
    private static final Bits NODE_POOL = new Bits(PolicyDecoder.NODE_POOL_CAPABILITIES);

    private final Table namespaces;
    private final Table hostVolumes;
    private final Table nodePools;
    private final Variables variables;
    /** Every capability some namespace rule grants, for lists across all namespaces. */
    private final long anyNamespace;
    private final Access[] scopes = new Access[Scope.values().length];

    private CompiledAcl(Collection<PolicyRules> policies) {
        Table.Builder ns = new Table.Builder(NAMESPACE);
        Table.Builder hv = new Table.Builder(HOST_VOLUME);
        Table.Builder np = new Table.Builder(NODE_POOL);
        Variables.Builder vars = new Variables.Builder();
        Arrays.fill(scopes, Access.NONE);
        for (PolicyRules policy : policies) {
            for (PolicyRules.Namespace rule : policy.namespaces()) {
                ns.add(rule.name(), rule.capabilities());
                for (PolicyRules.VariablePath path : rule.variables()) {
                    vars.add(rule.name(), path.path(), VARIABLE.mask(path.capabilities()));
                }
            }
            for (PolicyRules.HostVolume rule : policy.hostVolumes()) {
                hv.add(rule.name(), rule.capabilities());
            }
            for (PolicyRules.NodePool rule : policy.nodePools()) {
                np.add(rule.name(), rule.capabilities());
            }
            // Access is ordered NONE < LIST < READ < WRITE < DENY: the highest level wins and deny beats all.
            policy.scopes().forEach((scope, access) -> {
                if (access.compareTo(scopes[scope.ordinal()]) > 0) {
                    scopes[scope.ordinal()] = access;
                }
            });
        }
        namespaces = ns.build();
        hostVolumes = hv.build();
        nodePools = np.build();
        variables = vars.build();
        anyNamespace = namespaces.union();
    }

    /** The ACL of a set of policies; no policies, no rights. */
    public static Acl compile(Collection<PolicyRules> policies) {
        return policies.isEmpty() ? Acl.NONE : new CompiledAcl(List.copyOf(policies));
    }

    @Override
    public boolean isManagement() {
        return false;
    }

    /** In namespace {@code *} (every namespace), as in Nomad: granted in at least one. */
    @Override
    public boolean allowNamespace(String namespace, String capability) {
        if ("*".equals(namespace)) {
            return allowAnyNamespace(capability);
        }
        long bit = NAMESPACE.bit(capability);
        return bit != 0 && namespace != null && (namespaces.lookup(namespace) & bit) != 0;
    }

    @Override
    public boolean allowAnyNamespace(String capability) {
        return (anyNamespace & NAMESPACE.bit(capability)) != 0;
    }

    @Override
    public boolean allow(Scope scope, Access access) {
        return scopes[scope.ordinal()].grants(access);
    }

    @Override
    public boolean allowHostVolume(String name, String capability) {
        long bit = HOST_VOLUME.bit(capability);
        return bit != 0 && name != null && (hostVolumes.lookup(name) & bit) != 0;
    }

    @Override
    public boolean allowNodePool(String pool, String capability) {
        long bit = NODE_POOL.bit(capability);
        return bit != 0 && pool != null && (nodePools.lookup(pool) & bit) != 0;
    }

    @Override
    public boolean allowNodePoolSearch() {
        return (nodePools.union() & NODE_POOL.bit("read")) != 0;
    }

    @Override
    public boolean allowVariable(String namespace, String path, String capability) {
        long bit = VARIABLE.bit(capability);
        return bit != 0 && namespace != null && path != null && (variables.lookup(namespace, path) & bit) != 0;
    }

    @Override
    public boolean allowVariableSearch(String namespace) {
        return namespace != null && variables.searchable(namespace);
    }

    @Override
    public String toString() {
        return "acl(namespaces=" + namespaces + ", host_volumes=" + hostVolumes + ", node_pools=" + nodePools
                + ", scopes="
                + Arrays.toString(scopes) + ")";
    }

    /** Merges a rule into what earlier rules for the same key granted. */
    static long merge(long current, long rule, long deny) {
        if ((current & deny) != 0) {
            return current;
        }
        return (rule & deny) != 0 ? deny : current | rule;
    }

    /** Capability names of one kind of rule, as bits. */
    static final class Bits {
        private final Map<String, Long> bits = new HashMap<>();
        private final long deny;

        Bits(List<String> names) {
            if (names.size() > Long.SIZE) {
                throw new IllegalStateException("more than 64 capabilities");
            }
            for (int i = 0; i < names.size(); i++) {
                bits.put(names.get(i), 1L << i);
            }
            deny = bits.get(PolicyDecoder.DENY);
        }

        /** The bit to test for a check; 0 (never granted) for {@code deny} and unknown names. */
        long bit(String capability) {
            Long bit = bits.get(capability);
            return bit == null || bit == deny ? 0 : bit;
        }

        long mask(Set<String> capabilities) {
            long mask = 0;
            for (String c : capabilities) {
                Long bit = bits.get(c);
                if (bit == null) {
                    throw new IllegalArgumentException("unknown capability " + c);
                }
                mask |= bit;
            }
            return mask;
        }

        long deny() {
            return deny;
        }
    }

    /** Rules by exact name, then by glob. */
    static final class Table {
        private final Map<String, Long> exact;
        private final Glob[] globs;
        private final long[] masks;

        private Table(Map<String, Long> exact, Map<Glob, Long> globs) {
            this.exact = Collections.unmodifiableMap(new HashMap<>(exact));
            this.globs = globs.keySet().toArray(Glob[]::new);
            this.masks = globs.values().stream().mapToLong(Long::longValue).toArray();
        }

        long lookup(String name) {
            Long mask = exact.get(name);
            if (mask != null) {
                return mask;
            }
            // Globs are sorted last first, so on a tie the first seen (the one sorting last) stays.
            int best = -1;
            int bestDistance = Integer.MAX_VALUE;
            for (int i = 0; i < globs.length; i++) {
                if (globs[i].matches(name)) {
                    int distance = globs[i].distance(name);
                    if (distance < bestDistance) {
                        best = i;
                        bestDistance = distance;
                    }
                }
            }
            return best < 0 ? 0 : masks[best];
        }

        long union() {
            long all = 0;
            for (long m : exact.values()) {
                all |= m;
            }
            for (long m : masks) {
                all |= m;
            }
            return all;
        }

        @Override
        public String toString() {
            return exact.size() + " exact, " + globs.length + " globs";
        }

        static final class Builder {
            private final Bits bits;
            private final Map<String, Long> exact = new LinkedHashMap<>();
            private final Map<Glob, Long> globs = new TreeMap<>(Comparator.reverseOrder());

            Builder(Bits bits) {
                this.bits = bits;
            }

            /** A rule with no capabilities still counts: it is the match for its name and grants nothing. */
            void add(String name, Set<String> capabilities) {
                long mask = bits.mask(capabilities);
                if (Glob.isGlob(name)) {
                    globs.merge(new Glob(name), mask, (a, b) -> merge(a, b, bits.deny()));
                } else {
                    exact.merge(name, mask, (a, b) -> merge(a, b, bits.deny()));
                }
            }

            Table build() {
                return new Table(exact, globs);
            }
        }
    }

    /**
     * Variables rules by namespace and path: exact when neither has a star, else matched as a pair and ranked by the
     * characters both stars cover, as Nomad does with its {@code namespace\0path} keys.
     */
    static final class Variables {
        private final Map<String, Map<String, Long>> exact;
        private final Glob[] namespaceGlobs;
        private final Glob[] pathGlobs;
        private final long[] masks;

        private Variables(Map<String, Map<String, Long>> exact, Map<List<Glob>, Long> globs) {
            Map<String, Map<String, Long>> copy = new HashMap<>();
            exact.forEach((ns, paths) -> copy.put(ns, Collections.unmodifiableMap(new HashMap<>(paths))));
            this.exact = Collections.unmodifiableMap(copy);
            this.namespaceGlobs = globs.keySet().stream().map(k -> k.get(0)).toArray(Glob[]::new);
            this.pathGlobs = globs.keySet().stream().map(k -> k.get(1)).toArray(Glob[]::new);
            this.masks = globs.values().stream().mapToLong(Long::longValue).toArray();
        }

        /** Whether a rule of {@code namespace} ({@code *}: of any) grants some capability on some path. */
        boolean searchable(String namespace) {
            long deny = VARIABLE.deny();
            boolean every = "*".equals(namespace);
            for (Map.Entry<String, Map<String, Long>> e : exact.entrySet()) {
                if ((every || e.getKey().equals(namespace))
                        && e.getValue().values().stream().anyMatch(mask -> mask != 0 && (mask & deny) == 0)) {
                    return true;
                }
            }
            for (int i = 0; i < masks.length; i++) {
                if ((every || namespaceGlobs[i].matches(namespace)) && masks[i] != 0 && (masks[i] & deny) == 0) {
                    return true;
                }
            }
            return false;
        }

        long lookup(String namespace, String path) {
            Map<String, Long> paths = exact.get(namespace);
            Long mask = paths == null ? null : paths.get(path);
            if (mask != null) {
                return mask;
            }
            int best = -1;
            int bestDistance = Integer.MAX_VALUE;
            for (int i = 0; i < masks.length; i++) {
                if (namespaceGlobs[i].matches(namespace) && pathGlobs[i].matches(path)) {
                    int distance = namespaceGlobs[i].distance(namespace) + pathGlobs[i].distance(path);
                    if (distance < bestDistance) {
                        best = i;
                        bestDistance = distance;
                    }
                }
            }
            return best < 0 ? 0 : masks[best];
        }

        static final class Builder {
            /** Last first, namespace then path: the order of Nomad's keys, reversed for the tie rule. */
            private static final Comparator<List<Glob>> ORDER = Comparator.<List<Glob>, Glob>comparing(k -> k.get(0))
                    .thenComparing(k -> k.get(1)).reversed();
            private final Map<String, Map<String, Long>> exact = new HashMap<>();
            private final Map<List<Glob>, Long> globs = new TreeMap<>(ORDER);

            void add(String namespace, String path, long mask) {
                long deny = VARIABLE.deny();
                if (Glob.isGlob(namespace) || Glob.isGlob(path)) {
                    globs.merge(List.of(new Glob(namespace), new Glob(path)), mask, (a, b) -> merge(a, b, deny));
                } else {
                    exact.computeIfAbsent(namespace, k -> new HashMap<>())
                            .merge(path, mask, (a, b) -> merge(a, b, deny));
                }
            }

            Variables build() {
                return new Variables(exact, globs);
            }
        }
    }
}
