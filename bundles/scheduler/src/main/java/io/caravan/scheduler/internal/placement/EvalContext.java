package io.caravan.scheduler.internal.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import io.caravan.api.model.Node;
import io.caravan.scheduler.NodeClasses;
import io.caravan.scheduler.SchedulerConfiguration;

/**
 * What one scheduling attempt shares between placements: the proposed state, the seeded randomness, the class
 * eligibility cache and memoised parsing (regular expressions, version constraints, node reserved ports).
 */
public final class EvalContext {
    private final ProposedState proposed;
    private final SchedulerConfiguration config;
    private final Random random;
    private final List<String> classNames = new ArrayList<>();
    private final Map<String, Integer> classIds = new HashMap<>();
    private final ClassEligibility eligibility = new ClassEligibility(classNames);
    /** Node index → class ID (-1 until first asked). */
    private final int[] nodeClassIds;
    private final Map<String, String> computedClasses = new HashMap<>();
    private final Map<String, Optional<Pattern>> regexes = new HashMap<>();
    private final Map<String, Optional<VersionConstraint>> versions = new HashMap<>();
    private final Map<String, NodeTarget> targets = new HashMap<>();
    private final Map<PropertyKey, PropertyCounts> propertyCounts = new HashMap<>();
    private final Map<String, BitSet> reservedPorts = new HashMap<>();
    private NodeCapacities capacities;
    private final ResourceFit.Cores[] cores;
    private final Map<NodeTarget, NodeValues> targetValues = new HashMap<>();
    private final Map<String, RankCache> rankCaches = new HashMap<>();

    private record PropertyKey(String property, String group) {
    }

    public EvalContext(ProposedState proposed, SchedulerConfiguration config, long seed) {
        this.proposed = proposed;
        this.config = config == null ? SchedulerConfiguration.DEFAULT : config;
        this.random = new Random(seed);
        this.nodeClassIds = new int[proposed.nodes().size()];
        this.cores = new ResourceFit.Cores[proposed.nodes().size()];
        Arrays.fill(nodeClassIds, -1);
    }

    public ProposedState proposed() {
        return proposed;
    }

    public SchedulerConfiguration config() {
        return config;
    }

    public Random random() {
        return random;
    }

    public ClassEligibility eligibility() {
        return eligibility;
    }

    /** A node of the snapshot by ID, or null. */
    public Node node(String id) {
        int i = proposed.indexOf(id);
        return i < 0 ? null : proposed.nodes().get(i);
    }

    /** The node's computed class: the stored one, or computed when the server has not set it. */
    public String classOf(Node node) {
        String stored = node.computedClass();
        if (stored != null && !stored.isEmpty()) {
            return stored;
        }
        return computedClasses.computeIfAbsent(node.id(), id -> NodeClasses.computedClass(node));
    }

    /** A small number standing for the class of the node at {@code nodeIndex} (see {@link ProposedState#indexOf}). */
    int classId(int nodeIndex, Node node) {
        int id = nodeIndex >= 0 ? nodeClassIds[nodeIndex] : -1;
        if (id < 0) {
            id = classIds.computeIfAbsent(classOf(node), name -> {
                classNames.add(name);
                return classNames.size() - 1;
            });
            if (nodeIndex >= 0) {
                nodeClassIds[nodeIndex] = id;
            }
        }
        return id;
    }

    public NodeTarget target(String text) {
        return targets.computeIfAbsent(text == null ? "" : text, NodeTarget::parse);
    }

    /** A compiled pattern, or null when it does not compile (the constraint then fails). */
    public Pattern regex(String pattern) {
        return regexes.computeIfAbsent(pattern, p -> {
            try {
                return Optional.of(Pattern.compile(p));
            } catch (PatternSyntaxException e) {
                return Optional.empty();
            }
        }).orElse(null);
    }

    public VersionConstraint versionConstraint(String text, boolean strict) {
        return versions.computeIfAbsent((strict ? "s:" : "v:") + text,
                k -> Optional.ofNullable(VersionConstraint.parse(text, strict))).orElse(null);
    }

    /** Live counts per value of {@code property} among the job's allocations (of {@code group}, or all when null). */
    public PropertyCounts propertyCounts(String property, String group) {
        // Looked up by every placement's spread: a record key hashes the strings' cached hashes, no concatenation.
        return propertyCounts.computeIfAbsent(new PropertyKey(property, group),
                k -> new PropertyCounts(values(target(property)), group, this));
    }

    RankCache rankCache(String group) {
        return rankCaches.computeIfAbsent(group, g -> new RankCache(nodeClassIds.length));
    }

    /** What the snapshot's nodes offer, computed on first use. */
    NodeCapacities capacities() {
        if (capacities == null) {
            capacities = new NodeCapacities(proposed.nodes());
        }
        return capacities;
    }

    /** The node's cores, for placements that reserve cores. */
    ResourceFit.Cores cores(RankedNode node) {
        int i = node.index();
        if (i < 0) {
            return ResourceFit.Cores.of(node.node());
        }
        ResourceFit.Cores c = cores[i];
        if (c == null) {
            c = ResourceFit.Cores.of(node.node());
            cores[i] = c;
        }
        return c;
    }

    /**
     * The target's values on this evaluation's nodes, interned as small numbers and resolved once per node. Scorers
     * that weigh every node for every placement (spread) index arrays by value ID instead of hashing strings.
     */
    public NodeValues values(NodeTarget target) {
        return targetValues.computeIfAbsent(target, t -> new NodeValues(t, proposed.nodes()));
    }

    /** Ports the node keeps back ({@code ReservedHostPorts}, e.g. "22,80,8000-8080"). */
    public BitSet reservedPorts(Node node) {
        return reservedPorts.computeIfAbsent(node.id(), id -> parsePortRanges(
                node.reservedResources() == null || node.reservedResources().networks() == null
                        ? null : node.reservedResources().networks().reservedHostPorts()));
    }

    static BitSet parsePortRanges(String spec) {
        BitSet ports = new BitSet();
        if (spec == null || spec.isBlank()) {
            return ports;
        }
        for (String part : spec.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            try {
                int dash = p.indexOf('-');
                if (dash > 0) {
                    ports.set(Integer.parseInt(p.substring(0, dash).trim()),
                            Integer.parseInt(p.substring(dash + 1).trim()) + 1);
                } else {
                    ports.set(Integer.parseInt(p));
                }
            } catch (NumberFormatException | IndexOutOfBoundsException e) {
                // A malformed range reserves nothing; the client validates its own configuration.
            }
        }
        return ports;
    }
}
