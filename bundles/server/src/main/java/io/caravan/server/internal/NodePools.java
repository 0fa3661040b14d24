package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.caravan.api.model.Job;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateTxn;
import io.caravan.state.TableSpec;

/**
 * Nomad's node pools (1.6+): named groups of client nodes that jobs select with {@code node_pool}. The built-in
 * {@code all} (every node) and {@code default} (nodes that name no pool) always exist, are never stored, and can be
 * neither changed nor deleted; a pool a node registers with is created by that registration, as Nomad does.
 */
final class NodePools {
    static final String ALL = "all";
    static final String DEFAULT = "default";
    /** Nomad's {@code validNodePoolName}. */
    static final Pattern VALID_NAME = Pattern.compile("^[a-zA-Z0-9-_]{1,128}$");
    static final int MAX_DESCRIPTION = 256;

    /** A pool's scheduler settings, overriding the cluster's for jobs in the pool (null fields: not set). */
    record SchedulerConfiguration(String schedulerAlgorithm, Boolean memoryOversubscriptionEnabled) {}

    record NodePool(String name, String description, Map<String, String> meta,
                    SchedulerConfiguration schedulerConfiguration, long createIndex, long modifyIndex) {
        NodePool {
            description = description == null ? "" : description;
            meta = meta == null ? Map.of() : Map.copyOf(meta);
        }

        NodePool withIndexes(long createIndex, long modifyIndex) {
            return new NodePool(name, description, meta, schedulerConfiguration, createIndex, modifyIndex);
        }

        boolean builtIn() {
            return ALL.equals(name) || DEFAULT.equals(name);
        }
    }

    static final TableSpec<NodePool> TABLE = TableSpec.of("node_pools", NodePool.class, NodePool::name);

    /** The built-ins, at index 1 as Nomad's bootstrap writes them, with Nomad's descriptions. */
    static final List<NodePool> BUILT_IN = List.of(
            new NodePool(ALL, "Node pool with all nodes in the cluster.", Map.of(), null, 1, 1),
            new NodePool(DEFAULT, "Default node pool.", Map.of(), null, 1, 1));

    private NodePools() {
    }

    static Optional<NodePool> get(StateSnapshot s, String name) {
        return BUILT_IN.stream().filter(p -> p.name().equals(name)).findFirst()
                .or(() -> s.get(TABLE, name));
    }

    /** Every pool by name, the built-ins among them. */
    static Stream<NodePool> all(StateSnapshot s) {
        List<NodePool> all = new ArrayList<>(BUILT_IN);
        s.all(TABLE).filter(p -> !p.builtIn()).forEach(all::add);
        return all.stream().sorted(Comparator.comparing(NodePool::name));
    }

    /** Whether {@code node} is in {@code pool}: {@code all} holds every node, a node naming none is in default. */
    static boolean holds(String pool, String nodePool) {
        String own = nodePool == null || nodePool.isEmpty() ? DEFAULT : nodePool;
        return ALL.equals(pool) || pool.equals(own);
    }

    /** Nomad's refusal of a job in a pool that does not exist; empty when its pool exists. */
    static Optional<String> missing(StateSnapshot s, Job job) {
        String pool = job.nodePool() == null || job.nodePool().isEmpty() ? DEFAULT : job.nodePool();
        return get(s, pool).isPresent() ? Optional.empty()
                : Optional.of("job \"" + job.id() + "\" is in nonexistent node pool \"" + pool + "\"");
    }

    /** A 400 unless the pool {@code job} names exists (Nomad's admission check of a register or plan). */
    static void requireFor(StateSnapshot s, Job job) {
        missing(s, job).ifPresent(refused -> {
            throw io.caravan.api.CaravanException.badRequest(refused);
        });
    }

    /** Nomad's {@code NodePool.Validate}; empty when valid. */
    static Optional<String> problem(NodePool pool) {
        String name = pool.name() == null ? "" : pool.name();
        if (!VALID_NAME.matcher(name).matches()) {
            return Optional.of("invalid name \"" + name + "\", must match regex " + VALID_NAME.pattern());
        }
        if (pool.description().length() > MAX_DESCRIPTION) {
            return Optional.of("description longer than " + MAX_DESCRIPTION);
        }
        SchedulerConfiguration sc = pool.schedulerConfiguration();
        if (sc != null && sc.schedulerAlgorithm() != null && !sc.schedulerAlgorithm().isEmpty()
                && !List.of("binpack", "spread").contains(sc.schedulerAlgorithm())) {
            return Optional.of("invalid scheduler algorithm \"" + sc.schedulerAlgorithm() + "\"");
        }
        return Optional.empty();
    }

    /** Why {@code name} cannot be deleted (Nomad's texts), read from {@code s}; empty when it can. */
    static Optional<String> refusal(StateSnapshot s, String name, String region) {
        if (ALL.equals(name) || DEFAULT.equals(name)) {
            return Optional.of("modifying node pool \"" + name + "\" is not allowed");
        }
        if (s.all(NomadTables.NODES).anyMatch(n -> name.equals(n.nodePool()))) {
            return Optional.of("node pool \"" + name + "\" has nodes in regions: [" + region + "]");
        }
        if (s.all(NomadTables.JOBS).anyMatch(j -> name.equals(j.nodePool()) && !Job.STATUS_DEAD.equals(j.status()))) {
            return Optional.of("node pool \"" + name + "\" has non-terminal jobs in regions: [" + region + "]");
        }
        return Optional.empty();
    }

    // ---- appliers (Fsm) -----------------------------------------------------------------------------------------

    static Command.Result upsert(Fsm.Txn txn, Command.NodePoolUpsert cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        for (NodePool pool : cmd.pools()) {
            if (pool.builtIn()) {
                return Command.Result.rejected(index, 400, "modifying node pool \"" + pool.name()
                        + "\" is not allowed");
            }
        }
        for (NodePool pool : cmd.pools()) {
            long createIndex = state.get(TABLE, pool.name()).map(NodePool::createIndex).orElse(index);
            state.put(TABLE, pool.withIndexes(createIndex, index));
        }
        return Command.Result.ok(index);
    }

    /** Decided again at apply time: a node or job may have joined the pool since the endpoint looked. */
    static Command.Result delete(Fsm.Txn txn, Command.NodePoolDelete cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        for (String name : cmd.names()) {
            Optional<String> refused = refusal(state.read(), name, cmd.region());
            if (refused.isPresent()) {
                return Command.Result.rejected(index, 400, refused.get());
            }
            if (state.get(TABLE, name).isEmpty()) {
                return Command.Result.rejected(index, 404, "node pool \"" + name + "\" not found");
            }
        }
        cmd.names().forEach(name -> state.delete(TABLE, name));
        return Command.Result.ok(index);
    }

    /** Creates the pool a registering node names if it does not exist (in the node's own register transaction). */
    static void createFor(StateTxn state, String pool, long index) {
        if (pool == null || pool.isEmpty() || ALL.equals(pool) || DEFAULT.equals(pool)
                || state.get(TABLE, pool).isPresent()) {
            return;
        }
        state.put(TABLE, new NodePool(pool, "", Map.of(), null, index, index));
    }
}
