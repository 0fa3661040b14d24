package io.caravan.server.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.caravan.api.GoDuration;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.timer.SharedTimer;
import io.caravan.consensus.Leadership;
import io.caravan.metrics.MetricSink;
import io.caravan.metrics.MetricSource;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What only the leader does: the eval broker and blocked evaluations, the scheduler workers, the plan applier, node
 * heartbeat timers, the deployment watcher, garbage collection every {@code job_gc_interval} ({@link CoreGc}), and
 * (with ACLs on) the collection of expired ACL tokens ({@link AclTokenGc}). Exists exactly while this server leads ({@link Leadership} is mandatory), so DS starts it on a new leader and stops it on the old one. On
 * start it rebuilds the broker from the state store and gives every node the failover TTL, so no node is marked down
 * because leadership moved.
 *
 * <p>New evaluations and capacity changes reach it from the apply path ({@link ServerState.AppliedListener}): every
 * evaluation written through Raft is enqueued or blocked here, whoever wrote it.
 */
@Component(service = {LeaderDuties.class, MetricSource.class}, immediate = true, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class LeaderDuties implements ServerState.AppliedListener, MetricSource {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderDuties.class);
    private static final int DELIVERY_LIMIT = 3;
    private static final Duration NACK_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration NACK_DELAY = Duration.ofSeconds(1);
    private static final Duration FAILED_FOLLOW_UP = Duration.ofMinutes(1);

    private final ServerState state;
    private final StateStore store;
    private final RaftWrites writes;
    private final Clock clock = Clock.systemUTC();
    private final ScheduledExecutorService timers;
    private final EvalBroker broker;
    private final BlockedEvals blocked;
    private final PlanApplier planApplier;
    private final Heartbeats heartbeats;
    private final PeriodicDispatcher periodic;
    private final List<SchedulerWorker> workers = new ArrayList<>();
    private final WorkerTimings workerTimings = new WorkerTimings();
    private final DeploymentWatcher deployments;
    private final AclTokenGc tokenGc;
    private final CoreGc collector;
    /** {@code acl.enabled}: a reload may turn ACLs on or off, and the token GC with them. */
    private volatile boolean aclEnabled;
    /** Nodes whose drain-complete write is in flight, so it is sent once. */
    private final Set<String> drainsCompleting = java.util.concurrent.ConcurrentHashMap.newKeySet();

    @Activate
    public LeaderDuties(@Reference Leadership leadership, @Reference ServerState state, @Reference RaftWrites writes,
                        ServerSchedulingConfig config, AclConfig acl, AclTokenGc.Config gc,
                        CoreGc.Config coreGc, @Reference SharedTimer shared) {
        this.state = state;
        this.store = state.store();
        this.writes = writes;
        // heartbeat timers, deployment and periodic-job deadlines, GC passes: short, and their writes are not awaited
        this.timers = shared.timer("caravan-leader");
        this.broker = new EvalBroker(clock, DELIVERY_LIMIT, NACK_TIMEOUT, NACK_DELAY, this::failEval,
                this::cancelEvals);
        this.blocked = new BlockedEvals(broker::enqueue, this::cancelEvals);
        broker.pausedWhile(() -> SnapshotSchedulerState.schedulerConfig(store.snapshot()).pauseEvalBroker());
        this.planApplier = new PlanApplier(store, writes, clock);
        this.deployments = new DeploymentWatcher(store, writes, clock, timers);
        this.heartbeats = new Heartbeats(timers, GoDuration.parse(config.min_heartbeat_ttl()),
                config.max_heartbeats_per_second(), GoDuration.parse(config.heartbeat_grace()), this::nodeMissed);
        this.tokenGc = new AclTokenGc(store, writes, clock, GoDuration.parse(gc.acl_token_gc_threshold()));
        this.aclEnabled = acl.acl_enabled();
        this.collector = new CoreGc(store, writes, clock, CoreGc.Thresholds.of(coreGc));
        this.periodic = new PeriodicDispatcher(store, writes, clock, timers);
        state.addListener(this);
        restore(GoDuration.parse(config.failover_heartbeat_ttl()));
        periodic.restore();
        int count = config.num_schedulers() > 0 ? config.num_schedulers() : Runtime.getRuntime().availableProcessors();
        Set<String> types = Set.of(config.enabled_schedulers());
        for (int i = 0; i < count; i++) {
            workers.add(new SchedulerWorker(i, broker, types, store, planApplier, writes, clock, workerTimings));
        }
        long every = AclTokenGc.INTERVAL.toMillis();
        timers.scheduleWithFixedDelay(() -> {
            if (aclEnabled) {
                tokenGc.run();
            }
        }, every, every, TimeUnit.MILLISECONDS);
        long gcEvery = Math.max(1, GoDuration.parse(coreGc.job_gc_interval()).toMillis());
        timers.scheduleWithFixedDelay(collector::run, gcEvery, gcEvery, TimeUnit.MILLISECONDS);
        LOG.info("Leader duties started for term {}: {} scheduler workers, {} evaluations queued, {} blocked",
                leadership.term(), count, broker.size(), blocked.size());
    }

    /**
     * A reload: the heartbeat limits apply to the next beats, the token GC and the core GC thresholds to their next
     * pass; the failover TTL is read when leadership starts. {@code num_schedulers}, {@code enabled_schedulers} and
     * {@code job_gc_interval} are restart-only in the agent's schema. Without this method DS would stop and start the
     * leader's duties on every change of the server's PID.
     */
    @Modified
    void modified(ServerSchedulingConfig config, AclConfig acl, AclTokenGc.Config gc, CoreGc.Config coreGc) {
        heartbeats.configure(GoDuration.parse(config.min_heartbeat_ttl()), config.max_heartbeats_per_second(),
                GoDuration.parse(config.heartbeat_grace()));
        tokenGc.threshold(GoDuration.parse(gc.acl_token_gc_threshold()));
        aclEnabled = acl.acl_enabled();
        collector.thresholds(CoreGc.Thresholds.of(coreGc));
    }

    @Deactivate
    void deactivate() {
        state.removeListener(this);
        deployments.close();
        periodic.close();
        broker.close();
        workers.forEach(SchedulerWorker::close);
        planApplier.close();
        heartbeats.clear();
        timers.shutdownNow();
        LOG.info("Leader duties stopped");
    }

    /** The leader's gauges (Nomad publishes them on the leader only, as this component exists only there). */
    @Override
    public void sample(MetricSink sink) {
        LeaderMetrics.report(sink, broker.stats(), blocked.size(), planApplier, heartbeats.size(), store.snapshot());
        workerTimings.report(sink);
    }

    /** The scheduler workers' state, for {@code GET /v1/agent/schedulers}. */
    List<SchedulerWorker.Info> workers() {
        return workers.stream().map(SchedulerWorker::info).toList();
    }

    /** A node's heartbeat: the TTL it must beat within next. */
    Duration heartbeat(String nodeId) {
        return heartbeats.beat(nodeId);
    }

    void forgetNode(String nodeId) {
        heartbeats.remove(nodeId);
    }

    /** Pending evaluations to the broker, blocked ones to the tracker; every node gets the failover window. */
    private void restore(Duration failoverTtl) {
        StateSnapshot snapshot = store.snapshot();
        snapshot.all(NomadTables.EVALS).forEach(this::track);
        Duration window = heartbeats.leadershipGained(snapshot.all(NomadTables.NODES)
                .filter(n -> !Node.STATUS_DOWN.equals(n.status())).map(Node::id).toList(), failoverTtl);
        LOG.atInfo().addKeyValue("nodes", heartbeats.size()).addKeyValue("window", window)
                .log("heartbeat timers reset for the new leader");
    }

    private void track(Evaluation e) {
        if (Evaluation.STATUS_PENDING.equals(e.status())) {
            broker.enqueue(e);
        } else if (Evaluation.STATUS_BLOCKED.equals(e.status())) {
            blocked.block(e);
        } else if (e.terminal()) {
            blocked.untrack(e.namespace(), e.jobId(), e.id());
        }
    }

    @Override
    public void applied(long index, Command command) {
        StateSnapshot snapshot = store.snapshot();
        for (Evaluation e : command.evals()) {
            snapshot.get(NomadTables.EVALS, e.id()).ifPresent(this::track);
            if (Evaluation.STATUS_COMPLETE.equals(e.status()) && e.failedTgAllocs().isEmpty()) {
                blocked.untrackJob(e.namespace(), e.jobId()); // this write cancelled it (EvalApply.cancelBlocked)
            }
        }
        if (command instanceof Command.JobRegister c) {
            periodic.jobChanged(c.job().namespace(), c.job().id());
        } else if (command instanceof Command.JobDeregister c) {
            periodic.jobChanged(c.namespace(), c.jobId());
        } else if (command instanceof Command.NodeRegister c) {
            unblockNode(snapshot, c.node().id(), index);
        } else if (command instanceof Command.NodeStatusUpdate c) {
            if (Node.STATUS_READY.equals(c.status())) {
                unblockNode(snapshot, c.nodeId(), index);
            } else if (Node.STATUS_DOWN.equals(c.status())) {
                heartbeats.remove(c.nodeId());
            }
        } else if (command instanceof Command.NodeEligibilityUpdate c) {
            unblockNode(snapshot, c.nodeId(), index);
        } else if (command instanceof Command.AllocClientUpdate c) {
            c.nodes().stream().filter(n -> n.allocs().stream().anyMatch(Allocation::terminal))
                    .forEach(n -> unblockNode(snapshot, n.nodeId(), index));
        } else if (command instanceof Command.PlanApply c && !c.stopped().isEmpty()) {
            c.stopped().stream().map(a -> snapshot.get(NomadTables.ALLOCS, a.id()).map(Allocation::nodeId)
                    .orElse(null)).filter(id -> id != null).distinct()
                    .forEach(nodeId -> unblockNode(snapshot, nodeId, index));
        } else if (command instanceof Command.NodeDeregister c) {
            heartbeats.remove(c.nodeId());
        }
        completeDrains(snapshot, nodesTouched(snapshot, command));
        deployments.applied(command);
    }

    private static java.util.Collection<String> nodesTouched(StateSnapshot snapshot, Command command) {
        if (command instanceof Command.NodeDrainUpdate c && c.strategy() != null) {
            return List.of(c.nodeId());
        } else if (command instanceof Command.PlanApply c) {
            return c.stopped().stream().map(a -> snapshot.get(NomadTables.ALLOCS, a.id()).map(Allocation::nodeId)
                    .orElse(null)).filter(id -> id != null).collect(java.util.stream.Collectors.toSet());
        } else if (command instanceof Command.AllocClientUpdate c) {
            return c.nodes().stream().map(Command.NodeAllocs::nodeId).toList();
        }
        return List.of();
    }

    /**
     * A draining node with nothing left to move has finished draining (Nomad's drainer): the drain ends as complete
     * and the node stays ineligible. Checked whenever allocations on the node changed.
     */
    private void completeDrains(StateSnapshot snapshot, java.util.Collection<String> nodeIds) {
        for (String nodeId : nodeIds) {
            Node node = snapshot.get(NomadTables.NODES, nodeId).orElse(null);
            if (node == null || node.drainStrategy() == null || !drainsCompleting.add(nodeId)) {
                continue;
            }
            boolean ignoreSystem = node.drainStrategy().ignoreSystemJobs();
            boolean remaining = snapshot.byIndex(NomadTables.ALLOCS, "node", nodeId).anyMatch(a -> !a.terminal()
                    && !(ignoreSystem && a.job() != null && (Job.TYPE_SYSTEM.equals(a.job().type())
                    || Job.TYPE_SYSBATCH.equals(a.job().type()))));
            if (remaining) {
                drainsCompleting.remove(nodeId);
                continue;
            }
            LOG.atInfo().addKeyValue("node_id", nodeId).log("node drain complete");
            writes.submit(new Command.NodeDrainUpdate(nodeId, null, false, true, clock.millis() * 1_000_000L,
                    List.of())).whenComplete((r, e) -> drainsCompleting.remove(nodeId));
        }
    }

    @Override
    public void restored() {
        // A snapshot replaced the state while leading: rebuild what depends on it.
        store.snapshot().all(NomadTables.EVALS).forEach(this::track);
        periodic.restore();
    }

    private void unblockNode(StateSnapshot snapshot, String nodeId, long index) {
        snapshot.get(NomadTables.NODES, nodeId).filter(Node::ready)
                .ifPresent(n -> blocked.unblock(n.computedClass() == null ? "" : n.computedClass(), index));
    }

    /** A missed heartbeat: the write it calls for; a node left disconnected keeps a timer, to go down later. */
    private void nodeMissed(String nodeId) {
        StateSnapshot snapshot = store.snapshot();
        Command.NodeStatusUpdate update = missedHeartbeat(snapshot, nodeId, clock.millis() * 1_000_000L);
        boolean disconnected = update == null
                ? snapshot.get(NomadTables.NODES, nodeId).map(n -> Node.STATUS_DISCONNECTED.equals(n.status()))
                .orElse(false)
                : Node.STATUS_DISCONNECTED.equals(update.status());
        if (disconnected) {
            heartbeats.beat(nodeId); // as if it had beaten: checked again one TTL later
        }
        if (update == null) {
            return;
        }
        LOG.atWarn().addKeyValue("node_id", nodeId).addKeyValue("status", update.status())
                .log("node missed its heartbeat");
        writes.submit(update).whenComplete((r, e) -> {
            if (e != null) {
                LOG.atWarn().addKeyValue("node_id", nodeId).setCause(e).log("could not update node status");
            }
        });
    }

    /**
     * What a missed heartbeat does (NOMAD-REFERENCE §3.4): the node becomes {@code disconnected} while some
     * allocation on it may still reconnect within its group's {@code disconnect.lost_after}, otherwise {@code down}
     * (an {@code initializing} node always goes down); every job with work on it is re-evaluated. Null when nothing
     * changes: the node is gone, already down, or disconnected with a window still open.
     */
    static Command.NodeStatusUpdate missedHeartbeat(StateSnapshot snapshot, String nodeId, long nowNanos) {
        Node node = snapshot.get(NomadTables.NODES, nodeId).orElse(null);
        if (node == null || Node.STATUS_DOWN.equals(node.status())) {
            return null;
        }
        boolean disconnect = !Node.STATUS_INITIALIZING.equals(node.status()) && mayReconnect(snapshot, nodeId, nowNanos);
        if (disconnect && Node.STATUS_DISCONNECTED.equals(node.status())) {
            return null;
        }
        return new Command.NodeStatusUpdate(nodeId, disconnect ? Node.STATUS_DISCONNECTED : Node.STATUS_DOWN,
                nowNanos / 1_000_000_000L, NodeEvals.forNode(snapshot, nodeId, node.modifyIndex(),
                Evaluation.TRIGGER_NODE_UPDATE, nowNanos));
    }

    /** Nomad's pending reconnects: a live allocation on the node whose group's disconnect window is still open. */
    static boolean mayReconnect(StateSnapshot snapshot, String nodeId, long nowNanos) {
        return snapshot.byIndex(NomadTables.ALLOCS, "node", nodeId).anyMatch(a -> {
            if (a.terminal() || a.job() == null) {
                return false;
            }
            TaskGroup group = a.lookupTaskGroup();
            Duration window = group == null ? null : group.lostAfter();
            if (window == null) {
                return false;
            }
            long unknownSince = Allocation.CLIENT_UNKNOWN.equals(a.clientStatus()) ? a.lastUnknownNanos() : -1;
            return unknownSince < 0 || unknownSince + window.toNanos() > nowNanos;
        });
    }

    /** Past the delivery limit: failed, with a follow-up evaluation later (Nomad's failed-follow-up). */
    private void failEval(Evaluation eval) {
        long now = clock.millis() * 1_000_000L;
        Duration wait = FAILED_FOLLOW_UP.plusSeconds(ThreadLocalRandom.current().nextLong(240));
        Evaluation followUp = eval.toBuilder().id(UUID.randomUUID().toString()).status(Evaluation.STATUS_PENDING)
                .statusDescription("").triggeredBy(Evaluation.TRIGGER_FAILED_FOLLOW_UP).previousEval(eval.id())
                .waitUntil(Instant.ofEpochMilli(clock.millis()).plus(wait)).waitDuration(wait)
                .createTime(now).modifyTime(now).build();
        Evaluation failed = eval.toBuilder().status(Evaluation.STATUS_FAILED)
                .statusDescription("evaluation reached delivery limit (" + DELIVERY_LIMIT + ")")
                .nextEval(followUp.id()).modifyTime(now).build();
        writes.submit(new Command.EvalUpsert(List.of(failed, followUp)));
    }

    private void cancelEvals(List<Evaluation> evals) {
        long now = clock.millis() * 1_000_000L;
        List<Evaluation> canceled = evals.stream().map(e -> e.toBuilder().status(Evaluation.STATUS_CANCELED)
                .statusDescription("canceled after more recent eval was processed").modifyTime(now).build()).toList();
        writes.submit(new Command.EvalUpsert(canceled));
    }
}
