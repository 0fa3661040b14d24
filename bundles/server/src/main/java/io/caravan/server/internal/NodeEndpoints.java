package io.caravan.server.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.caravan.agent.AgentInfo;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.PolicyCompiler;
import io.caravan.api.endpoint.NodeEndpoint;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Node;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.scheduler.NodeClasses;
import io.caravan.state.Indexed;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Nomad's {@code Node.*} endpoints that clients call: register, heartbeat, alloc updates, and the blocking query on a
 * node's allocations. Every call but register proves the node's secret. Writes go through Raft with the evaluations
 * they call for; heartbeat timers live with the leader ({@link LeaderDuties}).
 */
@Component(service = NodeEndpoint.class)
public final class NodeEndpoints implements NodeEndpoint {
    /** When no leader duties run here (a follower, or leadership just moved), heartbeats get the minimum TTL. */
    private static final Duration FALLBACK_TTL = Duration.ofSeconds(10);

    private final StateStore store;
    private final RaftWrites writes;
    private final AgentInfo agent;
    private final Clock clock = Clock.systemUTC();
    private final AllocUpdateBatcher batcher;
    private final ClientIntroduction introduction;
    private volatile LeaderDuties leader;
    /** Compiles the implicit workload policy that bounds what a task's templates read. */
    @Reference
    volatile PolicyCompiler policies;
    /** Opens the items of the variables a task's templates read (they are sealed at rest). */
    @Reference
    volatile Variables variables;
    /** Signs workload identities; absent (signing refused) until this server's keyring is up. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile KeyringService keyring;

    @Activate
    public NodeEndpoints(@Reference ServerState state, @Reference RaftWrites writes, @Reference AgentInfo agent,
                         @Reference ClientIntroduction introduction) {
        this.store = state.store();
        this.writes = writes;
        this.agent = agent;
        this.introduction = introduction;
        this.batcher = new AllocUpdateBatcher(writes, clock);
    }

    @Deactivate
    void deactivate() {
        batcher.close();
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void bindLeader(LeaderDuties duties) {
        leader = duties;
    }

    void unbindLeader(LeaderDuties duties) {
        if (leader == duties) {
            leader = null;
        }
    }

    @Override
    public CompletionStage<NodeUpdateResponse> register(Node node) {
        return register(node, "");
    }

    /** A node the servers do not know must be introduced first ({@link ClientIntroduction}); the token is not kept. */
    @Override
    public CompletionStage<NodeUpdateResponse> register(Node node, String introToken) {
        try {
            StateSnapshot snapshot = store.snapshot();
            Command.NodeRegister registration = registration(snapshot, node, nowNanos());
            if (snapshot.get(NomadTables.NODES, node.id()).isEmpty()) {
                introduction.admit(registration.node(), introToken);
            }
            return writes.submit(registration).thenApply(r -> withIdentity(response(node.id(), r),
                    registration.node(), true));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private NodeUpdateResponse withIdentity(NodeUpdateResponse response, Node node, boolean registering) {
        return introduction.identityFor(node, registering).map(response::withIdentity).orElse(response);
    }

    /** The write a registration calls for: the node as stored, and evaluations when its jobs must look again. */
    static Command.NodeRegister registration(StateSnapshot snapshot, Node node, long nowNanos) {
        validate(node);
        Node existing = snapshot.get(NomadTables.NODES, node.id()).orElse(null);
        if (existing != null && existing.secretId() != null && !existing.secretId().equals(node.secretId())) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "node secret ID does not match");
        }
        Node stored = node.toBuilder()
                .nodePool(node.nodePool() == null || node.nodePool().isEmpty() ? Node.DEFAULT_POOL : node.nodePool())
                .statusUpdatedAt(nowNanos / 1_000_000_000L)
                .build();
        stored = stored.toBuilder().computedClass(NodeClasses.computedClass(stored)).build();
        List<Evaluation> evals = wantsEvals(existing, stored)
                ? NodeEvals.forNode(snapshot, node.id(), existing == null ? 0 : existing.modifyIndex(),
                Evaluation.TRIGGER_NODE_UPDATE, nowNanos)
                : List.of();
        return new Command.NodeRegister(stored, evals);
    }

    @Override
    public CompletionStage<NodeUpdateResponse> updateStatus(String nodeId, String secretId, String status) {
        try {
            Node node = authenticate(nodeId, secretId);
            Command.NodeStatusUpdate update = statusUpdate(store.snapshot(), node, status, nowNanos());
            if (update == null) {
                // A plain heartbeat: no write, only the timer (Nomad writes nothing either).
                return CompletableFuture.completedFuture(withIdentity(response(nodeId, null), node, false));
            }
            return writes.submit(update).thenApply(r -> withIdentity(response(nodeId, r), node, false));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The write a client's heartbeat calls for, with the evaluations a status change needs; null when unchanged. */
    static Command.NodeStatusUpdate statusUpdate(StateSnapshot snapshot, Node node, String status, long nowNanos) {
        if (!Node.STATUS_READY.equals(status) && !Node.STATUS_INITIALIZING.equals(status)
                && !Node.STATUS_DOWN.equals(status)) {
            throw CaravanException.invalid("Status", "invalid status for node: " + status);
        }
        if (status.equals(node.status())) {
            return null;
        }
        List<Evaluation> evals = Node.STATUS_READY.equals(status) || Node.STATUS_DOWN.equals(status)
                ? NodeEvals.forNode(snapshot, node.id(), node.modifyIndex(), Evaluation.TRIGGER_NODE_UPDATE, nowNanos)
                : List.of();
        return new Command.NodeStatusUpdate(node.id(), status, nowNanos / 1_000_000_000L, evals);
    }

    @Override
    public CompletionStage<Long> updateAllocs(String nodeId, String secretId, List<Allocation> updates) {
        try {
            Node node = authenticate(nodeId, secretId);
            if (!AllocApply.acceptsAllocUpdates(node)) {
                throw CaravanException.badRequest("node " + nodeId + " is " + node.status()
                        + ": it must heartbeat before updating allocations");
            }
            return batcher.add(nodeId, clientViews(updates), allocUpdateEvals(store.snapshot(), updates, nowNanos()));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The evaluations clients' allocation updates call for, one per job: the scheduler acts on a failed allocation
     * (reschedule policy) and on one reporting after its node was disconnected ({@code disconnect.reconcile}).
     */
    static List<Evaluation> allocUpdateEvals(StateSnapshot snapshot, List<Allocation> updates, long nowNanos) {
        Map<String, Evaluation> evals = new HashMap<>();
        for (Allocation update : updates) {
            Allocation stored = snapshot.get(NomadTables.ALLOCS, update.id()).filter(a -> !a.terminal()).orElse(null);
            if (stored == null || stored.job() == null) {
                continue;
            }
            String trigger = stored.needsToReconnect() ? Evaluation.TRIGGER_RECONNECT
                    : Allocation.CLIENT_FAILED.equals(update.clientStatus()) ? Evaluation.TRIGGER_RETRY_FAILED_ALLOC
                    : null;
            if (trigger != null) {
                evals.computeIfAbsent(NomadTables.key(stored.job().namespace(), stored.job().id()),
                        k -> Evaluation.forJob(UUID.randomUUID().toString(), stored.job(), trigger, nowNanos));
            }
        }
        return new ArrayList<>(evals.values());
    }

    /**
     * Only the client's fields go into the log entry (a client may send whole allocations, jobs included); of the
     * deployment status, the health it reports and when ({@code Canary} and the rest are the servers').
     */
    static List<Allocation> clientViews(List<Allocation> updates) {
        return updates.stream().map(u -> u.toBuilder().job(null).allocatedResources(null).metrics(null)
                .rescheduleTracker(null).deploymentStatus(reportedHealth(u.deploymentStatus())).networkStatus(null)
                .build()).toList();
    }

    private static io.caravan.api.model.AllocDeploymentStatus reportedHealth(
            io.caravan.api.model.AllocDeploymentStatus status) {
        return status == null || status.healthy() == null ? null
                : new io.caravan.api.model.AllocDeploymentStatus(status.healthy(), status.timestamp(), false, 0);
    }

    @Override
    public CompletionStage<ClientAllocs> clientAllocs(String nodeId, String secretId, long minIndex,
                                                      Duration maxWait) {
        return clientAllocs(nodeId, secretId, minIndex, 0, maxWait);
    }

    @Override
    public CompletionStage<ClientAllocs> clientAllocs(String nodeId, String secretId, long minIndex, long knownIndex,
                                                      Duration maxWait) {
        try {
            authenticate(nodeId, secretId);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return store.query(minIndex, maxWait, (s, ws) -> {
            ws.indexKey(NomadTables.ALLOCS.name(), "node", nodeId);
            // Only what was written after knownIndex (a write after it has a larger modify index): the node's
            // allocations by modify index, from there; and the latest one, whose modify index is the answer's.
            String from = NomadTables.nodeModifyKey(nodeId, knownIndex + 1);
            String to = nodeId + "\1";
            Map<String, Long> changed = new HashMap<>();
            s.byIndexRange(NomadTables.ALLOCS, NomadTables.NODE_MODIFY, from, to, false).forEach(a -> {
                if (a.allocModifyIndex() > knownIndex) {
                    changed.put(a.id(), a.allocModifyIndex());
                }
            });
            long latest = s.byIndexRange(NomadTables.ALLOCS, NomadTables.NODE_MODIFY, nodeId + "\0", to, true)
                    .findFirst().map(Allocation::modifyIndex).orElse(0L);
            long index = Math.max(latest, 1);
            int total = s.aggregate(NomadTables.ALLOCS, NomadTables.NODE_ALLOCS, nodeId);
            return new Indexed<>(new ClientAllocs(changed, index, total), index);
        }).thenApply(Indexed::value);
    }

    @Override
    public CompletionStage<List<Allocation>> allocs(String nodeId, String secretId, List<String> allocIds) {
        try {
            authenticate(nodeId, secretId);
            StateSnapshot snapshot = store.snapshot();
            return CompletableFuture.completedFuture(allocIds.stream()
                    .map(id -> snapshot.get(NomadTables.ALLOCS, id)).flatMap(Optional::stream)
                    .filter(a -> nodeId.equals(a.nodeId())).toList());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<Long> updateServices(String nodeId, String secretId, List<ServiceRegistration> upserts,
                                                List<String> deleteIds) {
        try {
            Node node = authenticate(nodeId, secretId);
            StateSnapshot snapshot = store.snapshot();
            List<ServiceRegistration> own = ownServices(snapshot, node, upserts);
            // Only this node's registrations may be removed by it; an ID already gone is no error (a retry).
            List<String> deletes = deleteIds.stream().filter(id -> snapshot.get(NomadTables.SERVICE_REGISTRATIONS, id)
                    .map(r -> nodeId.equals(r.nodeId())).orElse(false)).toList();
            CompletionStage<Long> done = CompletableFuture.completedFuture(0L);
            if (!own.isEmpty()) {
                done = writes.submit(new Command.ServiceRegistrationUpsert(own)).thenApply(Command.Result::index);
            }
            if (!deletes.isEmpty()) {
                done = done.thenCompose(i -> writes.submit(new Command.ServiceRegistrationDelete(deletes)))
                        .thenApply(Command.Result::index);
            }
            return done;
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletionStage<TaskVariables> taskVariables(String nodeId, String secretId, String allocId, String task,
                                                        List<String> paths, List<String> prefixes, long minIndex,
                                                        Duration maxWait) {
        Allocation alloc;
        Acl acl;
        try {
            authenticate(nodeId, secretId);
            alloc = ownAlloc(nodeId, allocId);
            // What the task's workload identity may read (Nomad's implicit policy), whatever the client asks.
            acl = policies.compile(List.of(WorkloadIdentities.implicitPolicy(new WorkloadIdentities.Claims(
                    alloc.namespace(), alloc.jobId(), alloc.id(), task, ""), alloc.taskGroup())));
            for (String path : paths) {
                if (!acl.allowVariable(alloc.namespace(), path, "read")) {
                    throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied: task \"" + task
                            + "\" may not read variable \"" + path + "\"");
                }
            }
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        String ns = alloc.namespace();
        long now = nowNanos();
        return store.query(minIndex, maxWait, (s, ws) -> {
            ws.table(NomadTables.VARIABLES.name());
            List<TaskVariable> read = new ArrayList<>();
            for (String path : paths) {
                s.get(NomadTables.VARIABLES, NomadTables.key(ns, path))
                        .ifPresent(e -> read.add(taskVariable(variables.open(e.shown(now)), true)));
            }
            Map<String, List<TaskVariable>> listed = new HashMap<>();
            for (String prefix : prefixes) {
                listed.put(prefix, s.prefix(NomadTables.VARIABLES, NomadTables.key(ns, prefix))
                        .map(e -> e.shown(now))
                        .filter(v -> acl.allowVariable(ns, v.path(), "list"))
                        .map(v -> taskVariable(v, false)).toList());
            }
            long index = Math.max(1, s.tableIndex(NomadTables.VARIABLES.name()));
            return new Indexed<>(new TaskVariables(read, listed, index), index);
        }).thenApply(Indexed::value);
    }

    private static TaskVariable taskVariable(Variable v, boolean items) {
        return new TaskVariable(v.namespace(), v.path(), items ? v.items() : Map.of(), v.createIndex(),
                v.createTime(), v.modifyIndex(), v.modifyTime());
    }

    @Override
    public CompletionStage<TaskServices> taskServices(String nodeId, String secretId, String allocId,
                                                      List<String> names, long minIndex, Duration maxWait) {
        Allocation alloc;
        try {
            authenticate(nodeId, secretId);
            alloc = ownAlloc(nodeId, allocId);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        String ns = alloc.namespace();
        return store.query(minIndex, maxWait, (s, ws) -> {
            ws.table(NomadTables.SERVICE_REGISTRATIONS.name());
            List<ServiceRegistration> found = names.isEmpty()
                    ? s.all(NomadTables.SERVICE_REGISTRATIONS).filter(r -> ns.equals(r.namespace())).toList()
                    : names.stream().distinct().flatMap(n -> s.byIndex(NomadTables.SERVICE_REGISTRATIONS, "service",
                            NomadTables.key(ns, n))).toList();
            long index = Math.max(1, s.tableIndex(NomadTables.SERVICE_REGISTRATIONS.name()));
            return new Indexed<>(new TaskServices(found, index), index);
        }).thenApply(Indexed::value);
    }

    /** An allocation that runs on this node (templates read only for the allocations a node runs). */
    private Allocation ownAlloc(String nodeId, String allocId) {
        Allocation alloc = store.snapshot().get(NomadTables.ALLOCS, allocId == null ? "" : allocId)
                .orElseThrow(() -> new CaravanException(ErrorCode.NOT_FOUND, "allocation " + allocId + " not found"));
        if (!nodeId.equals(alloc.nodeId())) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED,
                    "allocation " + alloc.id() + " does not run on node " + nodeId);
        }
        return alloc;
    }

    /**
     * The registrations as stored: of this node's live allocations only, with the node's ID and datacenter and the
     * allocation's namespace and job (what the client says of those is not trusted).
     */
    static List<ServiceRegistration> ownServices(StateSnapshot snapshot, Node node, List<ServiceRegistration> asked) {
        List<ServiceRegistration> out = new ArrayList<>();
        for (ServiceRegistration r : asked) {
            if (r.id() == null || r.id().isEmpty() || r.serviceName() == null || r.serviceName().isEmpty()) {
                throw CaravanException.invalid("Services", "a service registration needs an ID and a ServiceName");
            }
            Allocation alloc = snapshot.get(NomadTables.ALLOCS, r.allocId() == null ? "" : r.allocId())
                    .orElseThrow(() -> CaravanException.invalid("Services.AllocID",
                            "allocation " + r.allocId() + " not found"));
            if (!node.id().equals(alloc.nodeId())) {
                throw new CaravanException(ErrorCode.PERMISSION_DENIED,
                        "allocation " + alloc.id() + " does not run on node " + node.id());
            }
            out.add(new ServiceRegistration(r.id(), r.serviceName(), alloc.namespace(), node.id(), node.datacenter(),
                    alloc.jobId(), alloc.id(), r.tags(), r.address(), r.port(), 0, 0));
        }
        return out;
    }

    @Override
    public CompletionStage<List<SignedIdentity>> signIdentities(String nodeId, String secretId,
                                                               List<IdentityRequest> requests) {
        try {
            authenticate(nodeId, secretId);
            KeyringService signer = keyring;
            if (signer == null) {
                throw new CaravanException(ErrorCode.INTERNAL, "the keyring is not running on this server yet");
            }
            return CompletableFuture.completedFuture(signIdentities(store.snapshot(), signer, nodeId, requests));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Signs each requested identity, after checking that its allocation runs on {@code nodeId}, is not terminal,
     * and that its task declares the identity; all or nothing.
     */
    static List<SignedIdentity> signIdentities(StateSnapshot snapshot, KeyringService signer, String nodeId,
                                               List<IdentityRequest> requests) {
        long now = signer.clock().millis() / 1000;
        List<SignedIdentity> out = new ArrayList<>(requests.size());
        for (IdentityRequest r : requests) {
            Allocation alloc = snapshot.get(NomadTables.ALLOCS, r.allocId() == null ? "" : r.allocId())
                    .orElseThrow(() -> CaravanException.invalid("AllocID", "allocation " + r.allocId() + " not found"));
            if (!nodeId.equals(alloc.nodeId())) {
                throw new CaravanException(ErrorCode.PERMISSION_DENIED,
                        "allocation " + alloc.id() + " does not run on node " + nodeId);
            }
            if (alloc.terminal()) {
                throw CaravanException.invalid("AllocID", "allocation " + alloc.id() + " is terminal");
            }
            io.caravan.api.model.TaskGroup group = alloc.lookupTaskGroup();
            io.caravan.api.model.Task task = group == null ? null : group.tasks().stream()
                    .filter(t -> t.name().equals(r.task())).findFirst().orElse(null);
            if (task == null) {
                throw CaravanException.invalid("TaskName", "allocation " + alloc.id() + " has no task " + r.task());
            }
            String name = r.identityName() == null || r.identityName().isEmpty() ? WorkloadIdentities.DEFAULT_NAME
                    : r.identityName();
            if (WorkloadIdentities.block(task, name).isEmpty()) {
                throw CaravanException.invalid("IdentityName", "task " + task.name() + " has no identity " + name);
            }
            Map<String, Object> claims = WorkloadIdentities.claims(alloc, task, name, now, signer.issuer());
            long exp = claims.get("exp") instanceof Number n ? n.longValue() : 0;
            out.add(new SignedIdentity(alloc.id(), task.name(), name, signer.sign(claims), exp));
        }
        return out;
    }

    private Node authenticate(String nodeId, String secretId) {
        Node node = store.snapshot().get(NomadTables.NODES, nodeId)
                .orElseThrow(() -> new CaravanException(ErrorCode.NOT_FOUND, "node not found"));
        if (node.secretId() == null || !node.secretId().equals(secretId)) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "node secret ID does not match");
        }
        return node;
    }

    private static void validate(Node node) {
        if (node.id() == null || node.id().isEmpty()) {
            throw CaravanException.invalid("Node.ID", "missing node ID for client registration");
        }
        if (node.secretId() == null || node.secretId().isEmpty()) {
            throw CaravanException.invalid("Node.SecretID", "missing node secret ID for client registration");
        }
        if (node.datacenter() == null || node.datacenter().isEmpty()) {
            throw CaravanException.invalid("Node.Datacenter", "missing datacenter for client registration");
        }
        if (node.name() == null || node.name().isEmpty()) {
            throw CaravanException.invalid("Node.Name", "missing node name for client registration");
        }
    }

    /**
     * A new node, or one whose scheduling-relevant description changed, makes its jobs (and system jobs)
     * re-evaluate. Register never changes a known node's status, so a status sent with it asks for nothing.
     */
    private static boolean wantsEvals(Node existing, Node node) {
        return existing == null || !java.util.Objects.equals(existing.computedClass(), node.computedClass());
    }

    private NodeUpdateResponse response(String nodeId, Command.Result result) {
        LeaderDuties duties = leader;
        Duration ttl = duties == null ? FALLBACK_TTL : duties.heartbeat(nodeId);
        long index = result == null ? store.snapshot().tableIndex(NomadTables.NODES.name()) : result.index();
        return new NodeUpdateResponse(ttl, index, List.of(agent.advertiseRpc()));
    }

    private long nowNanos() {
        return clock.millis() * 1_000_000L;
    }
}
