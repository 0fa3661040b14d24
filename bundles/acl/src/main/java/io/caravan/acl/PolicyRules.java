package io.caravan.acl;

import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import io.caravan.api.acl.Access;
import io.caravan.api.acl.Scope;

/**
 * One parsed ACL policy: its rules with every coarse {@code policy} already expanded into the capabilities it grants
 * (so a rule's {@code capabilities} is what the rule allows; a rule that says {@code deny} holds just {@code deny}).
 *
 * @param namespaces  namespace rules in source order; a name may be a glob ({@code prod-*}) and may repeat
 * @param hostVolumes host volume rules in source order; names may be globs
 * @param nodePools   node pool rules in source order; names may be globs
 * @param scopes      the coarse blocks that were written ({@code node}, {@code agent}, {@code operator},
 *                    {@code quota}, {@code plugin}) and their level
 */
public record PolicyRules(List<Namespace> namespaces, List<HostVolume> hostVolumes, List<NodePool> nodePools,
                          Map<Scope, Access> scopes) {

    public PolicyRules {
        namespaces = List.copyOf(namespaces);
        hostVolumes = List.copyOf(hostVolumes);
        nodePools = List.copyOf(nodePools);
        scopes = scopes.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(scopes));
    }

    /**
     * {@code namespace "<name or glob>" { policy = "..."  capabilities = [...]  variables { path "..." { } } }}.
     *
     * @param policy       the coarse policy as written ({@code deny}, {@code read}, {@code write}, {@code scale}), or
     *                     empty
     * @param capabilities the capabilities written plus those the policy expands to
     * @param variables    the {@code variables} block's {@code path} rules (the namespace's {@code policy} grants no
     *                     variable capabilities, as in Nomad)
     */
    public record Namespace(String name, String policy, Set<String> capabilities, List<VariablePath> variables) {
        public Namespace {
            Objects.requireNonNull(name, "name");
            policy = policy == null ? "" : policy;
            capabilities = sorted(capabilities);
            variables = List.copyOf(variables);
        }
    }

    /**
     * {@code path "<path or glob>" { capabilities = [...] }} inside a namespace's {@code variables} block.
     *
     * @param capabilities as written, plus {@code list} when {@code read} is there
     */
    public record VariablePath(String path, Set<String> capabilities) {
        public VariablePath {
            Objects.requireNonNull(path, "path");
            capabilities = sorted(capabilities);
        }
    }

    /**
     * {@code host_volume "<name or glob>" { policy = "..."  capabilities = [...] }}.
     *
     * @param policy       as written ({@code deny}, {@code read}, {@code write}), or empty
     * @param capabilities the capabilities written plus those the policy expands to
     */
    public record HostVolume(String name, String policy, Set<String> capabilities) {
        public HostVolume {
            Objects.requireNonNull(name, "name");
            policy = policy == null ? "" : policy;
            capabilities = sorted(capabilities);
        }
    }

    /** Rules without node pool rules (the form before those existed). */
    public PolicyRules(List<Namespace> namespaces, List<HostVolume> hostVolumes, Map<Scope, Access> scopes) {
        this(namespaces, hostVolumes, List.of(), scopes);
    }

    /**
     * {@code node_pool "<name or glob>" { policy = "..."  capabilities = [...] }}.
     *
     * @param policy       as written ({@code deny}, {@code read}, {@code write}), or empty
     * @param capabilities the capabilities written ({@code read}, {@code write}, {@code delete}, {@code deny}) plus
     *                     those the policy expands to
     */
    public record NodePool(String name, String policy, Set<String> capabilities) {
        public NodePool {
            Objects.requireNonNull(name, "name");
            policy = policy == null ? "" : policy;
            capabilities = sorted(capabilities);
        }
    }

    /** Sorted, so that printed rules read the same every time. */
    private static Set<String> sorted(Collection<String> values) {
        return Collections.unmodifiableSortedSet(new TreeSet<>(values));
    }
}
