package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.caravan.api.GoDuration;
import io.caravan.api.acl.AclAuthMethod;
import io.caravan.api.acl.AclBindingRule;
import io.caravan.api.acl.AclPolicy;
import io.caravan.api.acl.AclRole;
import io.caravan.api.acl.AclToken;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.DesiredTransition;
import io.caravan.api.model.DrainStrategy;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.api.model.Node;
import io.caravan.scheduler.DeploymentStatusUpdate;

/**
 * What the Raft log carries: every change to cluster state is one of these, built (validated, defaulted, IDs and
 * times chosen) by an endpoint and applied unchanged by every replica. Adding one means adding a record here and its
 * applier in {@link Fsm}, which refuses to start without one; {@link CommandCodec} names it on the wire.
 *
 * <p>Commands that change what can be scheduled carry the evaluations that follow from it, chosen by the endpoint
 * from the state it read, so the write and its evaluations land in one entry.
 */
sealed interface Command {

    /**
     * Checks what the appliers rely on (IDs present, no missing elements, known statuses), so that a command no endpoint
     * of ours could have built is refused: before the leader appends it, and again, the same way on every replica, when
     * it is applied. Structural only, and never made stricter for entries an older version wrote: a replay must accept
     * what was applied before.
     *
     * @throws IllegalArgumentException naming the field and the reason
     */
    void validate();

    /** The evaluations this command creates or updates (the leader enqueues or blocks them once applied). */
    default List<Evaluation> evals() {
        return List.of();
    }

    /**
     * Register or update a job, with the evaluation that schedules it. With {@code enforceIndex}, only if the
     * job's current JobModifyIndex is {@code jobModifyIndex} (0: the job must not exist yet) — Nomad's
     * check-and-set, decided at apply time so two racing writers cannot both win. A periodic or parameterized parent
     * is never scheduled, so it comes without an evaluation ({@code eval} null), as in Nomad.
     */
    record JobRegister(Job job, Evaluation eval, boolean enforceIndex, long jobModifyIndex) implements Command {
        @Override
        public void validate() {
            Checks.job(job, "Job");
            if (eval != null) {
                Checks.eval(eval, "Eval");
            }
        }

        @Override
        public List<Evaluation> evals() {
            return eval == null ? List.of() : List.of(eval);
        }
    }

    /**
     * Stop a job ({@code purge}: remove it and its versions), with the evaluation that stops its allocations (null for
     * a periodic or parameterized parent, which has none).
     */
    record JobDeregister(String namespace, String jobId, boolean purge, Evaluation eval) implements Command {
        @Override
        public void validate() {
            Checks.text(namespace, "Namespace");
            Checks.text(jobId, "JobID");
            if (eval != null) {
                Checks.eval(eval, "Eval");
            }
        }

        @Override
        public List<Evaluation> evals() {
            return eval == null ? List.of() : List.of(eval);
        }
    }

    /** Nomad's {@code Node.Register}: the node as the client describes it ({@code ComputedClass} set). */
    record NodeRegister(Node node, List<Evaluation> evals) implements Command {
        @Override
        public void validate() {
            Checks.present(node, "Node");
            Checks.text(node.id(), "Node.ID");
            Checks.evals(evals);
        }
    }

    /** A node's status changes: a heartbeat after a miss, the node asking for ready, or a missed TTL (down). */
    record NodeStatusUpdate(String nodeId, String status, long updatedAtSeconds, List<Evaluation> evals)
            implements Command {
        @Override
        public void validate() {
            Checks.text(nodeId, "NodeID");
            Checks.oneOf(status, "Status", Node.STATUS_INITIALIZING, Node.STATUS_READY, Node.STATUS_DOWN,
                    Node.STATUS_DISCONNECTED);
            Checks.evals(evals);
        }
    }

    record NodeEligibilityUpdate(String nodeId, String eligibility, List<Evaluation> evals) implements Command {
        @Override
        public void validate() {
            Checks.text(nodeId, "NodeID");
            Checks.oneOf(eligibility, "Eligibility", Node.ELIGIBLE, Node.INELIGIBLE);
            Checks.evals(evals);
        }
    }

    /**
     * Start ({@code strategy} set) or end a drain; allocations to move get DesiredTransition.Migrate. An end is
     * either cancelled by an operator or {@code complete}: the leader saw nothing left to move.
     */
    record NodeDrainUpdate(String nodeId, DrainStrategy strategy, boolean markEligible, boolean complete,
                           long updatedAtNanos, List<Evaluation> evals) implements Command {
        @Override
        public void validate() {
            Checks.text(nodeId, "NodeID");
            Checks.evals(evals);
        }
    }

    /** Remove a node ({@code node purge}); its allocations are left for the scheduler to mark lost. */
    record NodeDeregister(String nodeId, List<Evaluation> evals) implements Command {
        @Override
        public void validate() {
            Checks.text(nodeId, "NodeID");
            Checks.evals(evals);
        }
    }

    /**
     * Nomad's {@code Node.UpdateAlloc}: clients' views (status, description, task states) of their allocations,
     * from every node that sent one within a batching window — one log entry for many clients, as Nomad batches.
     */
    record AllocClientUpdate(List<NodeAllocs> nodes, long updatedAtNanos, List<Evaluation> evals) implements Command {
        @Override
        public void validate() {
            Checks.each(nodes, "Nodes", node -> {
                Checks.text(node.nodeId(), "Nodes.NodeID");
                Checks.allocs(node.allocs(), "Nodes.Allocs");
            });
            Checks.evals(evals);
        }
    }

    /** One node's part of an {@link AllocClientUpdate}. */
    record NodeAllocs(String nodeId, List<Allocation> allocs) {}

    /** Server-requested transitions (alloc stop, drain): migrate or reschedule, with the evaluations that act. */
    record AllocTransitionUpdate(Map<String, DesiredTransition> transitions, List<Evaluation> evals)
            implements Command {
        @Override
        public void validate() {
            Checks.present(transitions, "Transitions");
            Checks.each(transitions.keySet(), "Transitions", id -> Checks.text(id, "Transitions.AllocID"));
            Checks.each(transitions.values(), "Transitions", transition -> { });
            Checks.evals(evals);
        }
    }

    /**
     * A plan the leader's applier accepted: allocations to stop (ID, desired status and description, and client
     * status when lost), allocations to place or update (without their job: every one runs {@code job}, stored
     * once), and the evaluation the plan came from.
     */
    record PlanApply(String evalId, Job job, List<Allocation> stopped, List<Allocation> placed, long timestampNanos,
                     Deployment deployment, List<DeploymentStatusUpdate> deploymentUpdates)
            implements Command {
        public PlanApply {
            deploymentUpdates = deploymentUpdates == null ? List.of() : List.copyOf(deploymentUpdates);
        }

        /** A plan without deployment changes. */
        PlanApply(String evalId, Job job, List<Allocation> stopped, List<Allocation> placed, long timestampNanos) {
            this(evalId, job, stopped, placed, timestampNanos, null, List.of());
        }

        /**
         * The same plan as {@code parts} consecutive commands (fewer if it has fewer allocations): stops first, then
         * placements, in order, each part with the job.
         */
        List<PlanApply> split(int parts) {
            List<Allocation> all = new ArrayList<>(stopped);
            all.addAll(placed);
            int n = Math.max(1, Math.min(parts, all.size()));
            List<PlanApply> split = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int from = (int) ((long) all.size() * i / n);
                int to = (int) ((long) all.size() * (i + 1) / n);
                int stopsTo = Math.min(to, stopped.size());
                List<Allocation> partStops = from < stopsTo ? stopped.subList(from, stopsTo) : List.of();
                List<Allocation> partPlaced = placed.subList(Math.max(0, from - stopped.size()),
                        Math.max(0, to - stopped.size()));
                // The deployment goes with the first part: the placements that follow count against it.
                split.add(new PlanApply(evalId, job, List.copyOf(partStops), List.copyOf(partPlaced),
                        timestampNanos, i == 0 ? deployment : null, i == 0 ? deploymentUpdates : List.of()));
            }
            return split;
        }

        @Override
        public void validate() {
            Checks.text(evalId, "EvalID");
            Checks.allocs(stopped, "Stopped");
            if (placed != null && !placed.isEmpty()) {
                Checks.job(job, "Job");
            }
            Checks.allocs(placed, "Placed");
            Checks.each(placed, "Placed", alloc -> {
                Checks.text(alloc.nodeId(), "Placed.NodeID");
                Checks.text(alloc.namespace(), "Placed.Namespace");
                Checks.present(alloc.jobId(), "Placed.JobID");
            });
            if (deployment != null) {
                Checks.deployment(deployment, "Deployment");
            }
            Checks.each(deploymentUpdates, "DeploymentUpdates", u -> {
                Checks.text(u.deploymentId(), "DeploymentUpdates.DeploymentID");
                Checks.oneOf(u.status(), "DeploymentUpdates.Status", Deployment.STATUS_CANCELLED,
                        Deployment.STATUS_SUCCESSFUL, Deployment.STATUS_FAILED, Deployment.STATUS_RUNNING,
                        Deployment.STATUS_PAUSED);
            });
        }
    }

    /** Create or update evaluations (a scheduler's outcome, a blocked or follow-up evaluation). */
    record EvalUpsert(List<Evaluation> evals) implements Command {
        @Override
        public void validate() {
            Checks.evals(evals);
        }
    }

    /**
     * {@code PUT /v1/operator/scheduler/configuration}; with {@code cas}, only if the stored configuration's
     * ModifyIndex is still {@code expectedIndex} (0: none stored), decided at apply time.
     */
    record SchedulerConfigUpdate(SchedulerConfig config, boolean cas, long expectedIndex) implements Command {
        @Override
        public void validate() {
            Checks.present(config, "SchedulerConfig");
        }
    }

    /** Create or replace ACL policies (their rules already parsed by the endpoint). */
    record AclPolicyUpsert(List<AclPolicy> policies) implements Command {
        @Override
        public void validate() {
            Checks.each(policies, "Policies", p -> Checks.text(p.name(), "Policies.Name"));
        }
    }

    record AclPolicyDelete(List<String> names) implements Command {
        @Override
        public void validate() {
            Checks.each(names, "Names", n -> Checks.text(n, "Names"));
        }
    }

    /** Create or update ACL tokens: accessor, secret and times chosen by the endpoint. */
    record AclTokenUpsert(List<AclToken> tokens) implements Command {
        @Override
        public void validate() {
            Checks.each(tokens, "Tokens", Checks::token);
        }
    }

    record AclTokenDelete(List<String> accessorIds) implements Command {
        @Override
        public void validate() {
            Checks.each(accessorIds, "AccessorIDs", id -> Checks.text(id, "AccessorIDs"));
        }
    }

    /**
     * The first management token. Applied only while the cluster has none from a bootstrap, or when {@code resetIndex}
     * names the index of the last bootstrap (Nomad's {@code acl-bootstrap-reset} file), decided at apply time so two
     * racing bootstraps cannot both win.
     */
    record AclBootstrap(AclToken token, long resetIndex) implements Command {
        @Override
        public void validate() {
            Checks.token(token);
        }
    }

    record AclRoleUpsert(List<AclRole> roles) implements Command {
        @Override
        public void validate() {
            Checks.each(roles, "Roles", r -> {
                Checks.text(r.id(), "Roles.ID");
                Checks.text(r.name(), "Roles.Name");
            });
        }
    }

    record AclRoleDelete(List<String> ids) implements Command {
        @Override
        public void validate() {
            Checks.each(ids, "IDs", id -> Checks.text(id, "IDs"));
        }
    }

    /** Create or replace auth methods; at most one may be the default, decided at apply time. */
    record AclAuthMethodUpsert(List<AclAuthMethod> methods) implements Command {
        @Override
        public void validate() {
            Checks.each(methods, "AuthMethods", m -> {
                Checks.text(m.name(), "AuthMethods.Name");
                Checks.oneOf(m.type(), "AuthMethods.Type", AclAuthMethod.JWT, AclAuthMethod.OIDC);
            });
        }
    }

    /** Delete auth methods by name, and the binding rules that name them. */
    record AclAuthMethodDelete(List<String> names) implements Command {
        @Override
        public void validate() {
            Checks.each(names, "Names", n -> Checks.text(n, "Names"));
        }
    }

    /** Create or replace binding rules; each rule's auth method must exist when it is applied. */
    record AclBindingRuleUpsert(List<AclBindingRule> rules) implements Command {
        @Override
        public void validate() {
            Checks.each(rules, "BindingRules", r -> {
                Checks.text(r.id(), "BindingRules.ID");
                Checks.text(r.authMethod(), "BindingRules.AuthMethod");
                Checks.oneOf(r.bindType(), "BindingRules.BindType", AclBindingRule.ROLE, AclBindingRule.POLICY,
                        AclBindingRule.MANAGEMENT);
            });
        }
    }

    record AclBindingRuleDelete(List<String> ids) implements Command {
        @Override
        public void validate() {
            Checks.each(ids, "IDs", id -> Checks.text(id, "IDs"));
        }
    }

    /**
     * A deployment's status changes (an operator's fail, pause or resume; the watcher's failure, progress or success),
     * with the evaluation that acts on it and, for an auto-revert, the job version to register again (a new version).
     * Applied only while the deployment is active; {@code successful} also marks its job version stable.
     */
    record DeploymentStatusChange(String deploymentId, String status, String statusDescription, Evaluation eval,
                                  Job revertTo, long timestampNanos) implements Command {
        @Override
        public void validate() {
            Checks.text(deploymentId, "DeploymentID");
            Checks.oneOf(status, "Status", Deployment.STATUS_RUNNING, Deployment.STATUS_PAUSED,
                    Deployment.STATUS_FAILED, Deployment.STATUS_SUCCESSFUL, Deployment.STATUS_CANCELLED);
            if (eval != null) {
                Checks.eval(eval, "Eval");
            }
            if (revertTo != null) {
                Checks.job(revertTo, "Job");
                Checks.present(eval, "Eval");
            }
        }

        @Override
        public List<Evaluation> evals() {
            return eval == null ? List.of() : List.of(eval);
        }
    }

    /** Promote the canaries of every group ({@code all}) or of {@code groups}; each must have all its canaries healthy. */
    record DeploymentPromotion(String deploymentId, boolean all, List<String> groups, Evaluation eval,
                               long timestampNanos) implements Command {
        @Override
        public void validate() {
            Checks.text(deploymentId, "DeploymentID");
            Checks.each(groups, "Groups", g -> Checks.text(g, "Groups"));
            Checks.eval(eval, "Eval");
        }

        @Override
        public List<Evaluation> evals() {
            return List.of(eval);
        }
    }

    /** An operator sets allocations of a deployment healthy or unhealthy ({@code /v1/deployment/allocation-health}). */
    record DeploymentAllocHealth(String deploymentId, List<String> healthy, List<String> unhealthy, Evaluation eval,
                                 long timestampNanos) implements Command {
        @Override
        public void validate() {
            Checks.text(deploymentId, "DeploymentID");
            Checks.each(healthy, "HealthyAllocationIDs", id -> Checks.text(id, "HealthyAllocationIDs"));
            Checks.each(unhealthy, "UnhealthyAllocationIDs", id -> Checks.text(id, "UnhealthyAllocationIDs"));
            Checks.eval(eval, "Eval");
        }

        @Override
        public List<Evaluation> evals() {
            return List.of(eval);
        }
    }

    /** Mark one version of a job stable or not ({@code /v1/job/:id/stable}). */
    record JobStability(String namespace, String jobId, long version, boolean stable) implements Command {
        @Override
        public void validate() {
            Checks.text(namespace, "Namespace");
            Checks.text(jobId, "JobID");
        }
    }

    /**
     * Put the tag {@code name} on one version of a job ({@code version} non-null; null: the latest), or take it off
     * whichever version has it ({@code unset}). Names are unique per job, checked at apply time.
     */
    record JobVersionTag(String namespace, String jobId, String name, Long version, String description,
                         long taggedTimeNanos, boolean unset) implements Command {
        @Override
        public void validate() {
            Checks.text(namespace, "Namespace");
            Checks.text(jobId, "JobID");
            Checks.text(name, "Name");
        }
    }

    /**
     * Write a variable's items. With {@code cas}, only if its ModifyIndex is still {@code checkIndex} (0: it must not
     * exist); while its lock is held, only by the holder ({@code lockId}). Both decided at apply time, with the
     * leader's clock of when the command was built ({@code nowNanos}, Unix), so racing writers cannot both win.
     */
    record VariableSet(Variable variable, boolean cas, long checkIndex, String lockId, long nowNanos)
            implements Command {
        @Override
        public void validate() {
            Checks.present(variable, "Variable");
            Checks.text(variable.namespace(), "Variable.Namespace");
            Checks.text(variable.path(), "Variable.Path");
            if (!variable.hasContent()) {
                throw new IllegalArgumentException("Variable.Items: missing");
            }
            if (variable.lock() != null) {
                // The lock a holder names: its TTL and LockDelay, when given, must parse (the applier compares them).
                for (String duration : new String[] {variable.lock().ttl(), variable.lock().lockDelay()}) {
                    if (duration != null && !duration.isEmpty()) {
                        GoDuration.parse(duration);
                    }
                }
            }
        }
    }

    /** Delete a variable, with the same check-and-set and lock rules as {@link VariableSet}. */
    record VariableDelete(String namespace, String path, boolean cas, long checkIndex, String lockId, long nowNanos)
            implements Command {
        @Override
        public void validate() {
            Checks.text(namespace, "Namespace");
            Checks.text(path, "Path");
        }
    }

    /**
     * Acquire, renew or release a variable's lock ({@code variable.lock()}: the ID the endpoint chose for an acquire,
     * the holder's for the others, with TTL and LockDelay), at the leader's {@code nowNanos}.
     */
    record VariableLockUpdate(String operation, Variable variable, long nowNanos) implements Command {
        static final String ACQUIRE = "lock-acquire";
        static final String RENEW = "lock-renew";
        static final String RELEASE = "lock-release";

        @Override
        public void validate() {
            Checks.oneOf(operation, "Operation", ACQUIRE, RENEW, RELEASE);
            Checks.present(variable, "Variable");
            Checks.text(variable.namespace(), "Variable.Namespace");
            Checks.text(variable.path(), "Variable.Path");
            Checks.present(variable.lock(), "Variable.Lock");
            Checks.text(variable.lock().id(), "Variable.Lock.ID");
            if (ACQUIRE.equals(operation)) {
                positive(variable.lock().ttl(), "Variable.Lock.TTL");
                positive(variable.lock().lockDelay(), "Variable.Lock.LockDelay");
            }
        }

        private static void positive(String duration, String field) {
            Checks.text(duration, field);
            if (GoDuration.parse(duration).isNegative()) {
                throw new IllegalArgumentException(field + ": must not be negative");
            }
        }
    }

    /** Create or replace namespaces (validated by the endpoint). */
    record NamespaceUpsert(List<Namespaces.Namespace> namespaces) implements Command {
        @Override
        public void validate() {
            Checks.each(namespaces, "Namespaces", ns -> Checks.text(ns.name(), "Namespaces.Name"));
        }
    }

    /** Delete namespaces: refused at apply time for {@code default} or one with a job that is not dead. */
    record NamespaceDelete(List<String> names, String region) implements Command {
        @Override
        public void validate() {
            Checks.each(names, "Names", n -> Checks.text(n, "Names"));
        }
    }

    /** Record a scaling event for a job's group (the job must exist when it is applied). */
    record ScalingEventRecord(String namespace, String jobId, String group, ScalingEvents.ScalingEvent event)
            implements Command {
        @Override
        public void validate() {
            Checks.text(namespace, "Namespace");
            Checks.text(jobId, "JobID");
            Checks.text(group, "TaskGroup");
            Checks.present(event, "ScalingEvent");
        }
    }

    /** A server publishes its keystore's public key, so that servers seal root keys to it ({@link Keyring}). */
    record KeystoreRegister(Keyring.Keystore keystore) implements Command {
        @Override
        public void validate() {
            Checks.present(keystore, "Keystore");
            Checks.text(keystore.id(), "Keystore.ID");
            Checks.text(keystore.publicKey(), "Keystore.PublicKey");
        }
    }

    /**
     * A new root key (rotation or the first leader's), its material sealed per keystore; see {@link Keyring}. With
     * {@code rekey} (a full rotation) the key it replaces becomes {@code rekeying} until every variable it encrypts
     * is re-encrypted under the new one ({@link KeyringDuties#rekey}).
     */
    record RootKeyUpsert(Keyring.RootKey key, boolean rekey) implements Command {
        RootKeyUpsert(Keyring.RootKey key) {
            this(key, false);
        }

        @Override
        public void validate() {
            Checks.present(key, "Key");
            Checks.text(key.keyId(), "Key.KeyID");
            Checks.text(key.publicKey(), "Key.PublicKey");
            Checks.oneOf(key.state(), "Key.State", Keyring.ACTIVE, Keyring.INACTIVE);
        }
    }

    /** A server that holds a root key seals a copy for a keystore that lacks one. */
    record RootKeyWrap(String keyId, String keystoreId, Keyring.WrappedKey copy) implements Command {
        @Override
        public void validate() {
            Checks.text(keyId, "KeyID");
            Checks.text(keystoreId, "KeystoreID");
            Checks.present(copy, "Copy");
        }
    }

    /** Removes an inactive root key (the active one is refused when applied). */
    record RootKeyDelete(String keyId) implements Command {
        @Override
        public void validate() {
            Checks.text(keyId, "KeyID");
        }
    }

    /** Nomad's {@code ServiceRegistrationUpsertRequestType}: registrations replaced by ID, indexes set at apply. */
    record ServiceRegistrationUpsert(List<ServiceRegistration> services) implements Command {
        @Override
        public void validate() {
            Checks.each(services, "Services", r -> {
                Checks.text(r.id(), "Services.ID");
                Checks.text(r.serviceName(), "Services.ServiceName");
                Checks.text(r.namespace(), "Services.Namespace");
                Checks.text(r.nodeId(), "Services.NodeID");
                Checks.text(r.allocId(), "Services.AllocID");
            });
        }
    }

    /** Nomad's {@code ServiceRegistrationDeleteByIDRequestType}: registrations removed by ID (unknown IDs skipped). */
    record ServiceRegistrationDelete(List<String> ids) implements Command {
        @Override
        public void validate() {
            Checks.each(ids, "IDs", id -> Checks.text(id, "IDs"));
        }
    }

    /**
     * Variables re-encrypted under the active root key by a full rotation: each replaces the stored data only if the
     * variable's ModifyIndex is still {@code modifyIndex} (a write since then already used the new key); indexes stay.
     */
    record VariableRekey(List<Rekeyed> variables) implements Command {
        record Rekeyed(String namespace, String path, long modifyIndex, Variable.Sealed data) {}

        @Override
        public void validate() {
            Checks.each(variables, "Variables", v -> {
                Checks.text(v.namespace(), "Variables.Namespace");
                Checks.text(v.path(), "Variables.Path");
                Checks.present(v.data(), "Variables.Data");
            });
        }
    }

    /** A rekeying root key is done: no variable uses it any more (refused when applied if one still does). */
    record RootKeyRekeyed(String keyId) implements Command {
        @Override
        public void validate() {
            Checks.text(keyId, "KeyID");
        }
    }

    /**
     * Nomad's {@code EvalDeleteRequestType}, one bounded page of an operator's delete: the evaluations named by
     * {@code evalIds} (at most {@link EvalDeletes#MAX_IDS}), or, with a {@code filter}, those matching it whose ID is
     * in {@code [fromId, toId)} ({@code toId} empty: to the end), at most {@code perPage} — the page the endpoint
     * read, re-run by every replica so that the entry stays small whatever the filter selects.
     */
    record EvalDelete(List<String> evalIds, String filter, String fromId, String toId, int perPage)
            implements Command {
        public EvalDelete {
            evalIds = evalIds == null ? List.of() : evalIds;
            filter = filter == null ? "" : filter;
            fromId = fromId == null ? "" : fromId;
            toId = toId == null ? "" : toId;
        }

        @Override
        public void validate() {
            Checks.each(evalIds, "EvalIDs", id -> Checks.text(id, "EvalIDs"));
            if (evalIds.size() > EvalDeletes.MAX_IDS) {
                throw new IllegalArgumentException("EvalIDs: more than " + EvalDeletes.MAX_IDS);
            }
            boolean byFilter = !filter.isEmpty();
            if (byFilter == !evalIds.isEmpty()) {
                throw new IllegalArgumentException("EvalIDs: either IDs or a filter");
            }
            if (byFilter && (perPage < 1 || perPage > EvalDeletes.MAX_PER_PAGE)) {
                throw new IllegalArgumentException("PerPage: out of range " + perPage);
            }
            if (byFilter) {
                try {
                    io.caravan.http.filter.Filter.parse(filter);
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException("Filter: " + e.getMessage());
                }
            }
        }
    }

    /**
     * One batch of Nomad's core scheduler (garbage collection): jobs purged with what they own (versions, summary,
     * deployments), and evaluations, allocations, deployments, old job versions and nodes deleted by ID. The leader
     * chose them from its state ({@link CoreGc}); IDs already gone are skipped.
     */
    record GcDelete(List<JobRef> jobs, List<String> evalIds, List<String> allocIds, List<String> deploymentIds,
                    List<JobVersionRef> jobVersions, List<String> nodeIds) implements Command {
        /** A job as the leader saw it: purged only if its JobModifyIndex is still this one. */
        record JobRef(String namespace, String jobId, long jobModifyIndex) {}

        record JobVersionRef(String namespace, String jobId, long version) {}

        @Override
        public void validate() {
            Checks.each(jobs, "Jobs", j -> {
                Checks.text(j.namespace(), "Jobs.Namespace");
                Checks.text(j.jobId(), "Jobs.JobID");
            });
            Checks.each(evalIds, "EvalIDs", id -> Checks.text(id, "EvalIDs"));
            Checks.each(allocIds, "AllocIDs", id -> Checks.text(id, "AllocIDs"));
            Checks.each(deploymentIds, "DeploymentIDs", id -> Checks.text(id, "DeploymentIDs"));
            Checks.each(jobVersions, "JobVersions", v -> {
                Checks.text(v.namespace(), "JobVersions.Namespace");
                Checks.text(v.jobId(), "JobVersions.JobID");
            });
            Checks.each(nodeIds, "NodeIDs", id -> Checks.text(id, "NodeIDs"));
        }
    }

    /**
     * Nomad's {@code ReconcileJobSummariesRequestType}: every job's summary counted again from its allocations.
     *
     * @param requestTime when the operator asked (Unix nanoseconds), for the record
     */
    record JobSummariesReconcile(long requestTime) implements Command {
        @Override
        public void validate() {
        }
    }

    /**
     * One piece of a snapshot being restored ({@code PUT /v1/operator/snapshot}), staged in
     * {@link SnapshotRestore#CHUNKS} until its {@link SnapshotRestoreCommit}; bounded so that each fits one entry.
     * Part 0 drops whatever an earlier, unfinished restore staged.
     */
    record SnapshotRestoreChunk(String restoreId, int part, byte[] data) implements Command {
        @Override
        public void validate() {
            Checks.text(restoreId, "RestoreID");
            Checks.present(data, "Data");
            if (part < 0 || data.length > SnapshotRestore.PART_BYTES) {
                throw new IllegalArgumentException("Part: out of range");
            }
        }
    }

    /**
     * Replaces the whole state with the staged pieces of {@code restoreId}, if there are {@code parts} of them and
     * together they have {@code size} bytes and SHA-256 {@code sha256} and read as a state snapshot; otherwise nothing
     * changes. Applied outside a transaction: it replaces the state, not rows of it.
     */
    record SnapshotRestoreCommit(String restoreId, int parts, long size, String sha256) implements Command {
        @Override
        public void validate() {
            Checks.text(restoreId, "RestoreID");
            Checks.text(sha256, "SHA256");
            if (parts < 1 || size < 0) {
                throw new IllegalArgumentException("Parts: out of range");
            }
        }
    }

    /**
     * {@code PUT /v1/operator/autopilot/configuration}; with {@code cas}, only if the stored configuration's
     * ModifyIndex is {@code expectedIndex} (0: none stored yet), decided when applied.
     */
    record AutopilotConfigUpdate(AutopilotConfig config, boolean cas, long expectedIndex) implements Command {
        @Override
        public void validate() {
            Checks.present(config, "AutopilotConfig");
        }
    }

    /** Create or replace node pools (validated by the endpoint; the built-ins are refused at apply time). */
    record NodePoolUpsert(List<NodePools.NodePool> pools) implements Command {
        @Override
        public void validate() {
            Checks.each(pools, "NodePools", p -> Checks.text(p.name(), "NodePools.Name"));
        }
    }

    /** Delete node pools: refused at apply time for a built-in or one that has nodes or live jobs. */
    record NodePoolDelete(List<String> names, String region) implements Command {
        @Override
        public void validate() {
            Checks.each(names, "Names", n -> Checks.text(n, "Names"));
        }
    }

    /** A new one-time token (secret, accessor and expiry chosen by the endpoint). */
    record OneTimeTokenUpsert(OneTimeTokens.OneTimeToken token) implements Command {
        @Override
        public void validate() {
            Checks.present(token, "OneTimeToken");
            Checks.text(token.oneTimeSecretId(), "OneTimeToken.OneTimeSecretID");
            Checks.text(token.accessorId(), "OneTimeToken.AccessorID");
            Checks.present(token.expiresAt(), "OneTimeToken.ExpiresAt");
        }
    }

    /** Uses up a one-time token: deleted if present, accepted only if unexpired at {@code nowMillis}. */
    record OneTimeTokenExchange(String oneTimeSecretId, long nowMillis) implements Command {
        @Override
        public void validate() {
            Checks.text(oneTimeSecretId, "OneTimeSecretID");
        }
    }

    /** The leader's collection: deletes the one-time tokens expired at {@code nowMillis}. */
    record OneTimeTokenExpire(long nowMillis) implements Command {
        @Override
        public void validate() {
            // nothing: any time is valid
        }
    }

    /** The checks of {@link #validate}: each throws {@link IllegalArgumentException} naming the field. */
    final class Checks {
        private Checks() {
        }

        static void present(Object value, String field) {
            if (value == null) {
                throw new IllegalArgumentException(field + ": missing");
            }
        }

        static void text(String value, String field) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException(field + ": missing");
            }
        }

        static void oneOf(String value, String field, String... allowed) {
            if (!List.of(allowed).contains(value)) {
                throw new IllegalArgumentException(field + ": unknown value " + value);
            }
        }

        static <T> void each(Collection<T> values, String field, Consumer<T> check) {
            present(values, field);
            for (T value : values) {
                present(value, field + " element");
                check.accept(value);
            }
        }

        static void job(Job job, String field) {
            present(job, field);
            text(job.id(), field + ".ID");
            text(job.namespace(), field + ".Namespace");
            text(job.type(), field + ".Type");
            each(job.taskGroups(), field + ".TaskGroups", group -> {
                text(group.name(), field + ".TaskGroups.Name");
                each(group.tasks(), field + ".TaskGroups.Tasks",
                        task -> text(task.name(), field + ".TaskGroups.Tasks.Name"));
            });
        }

        static void eval(Evaluation eval, String field) {
            present(eval, field);
            text(eval.id(), field + ".ID");
            text(eval.namespace(), field + ".Namespace");
            present(eval.jobId(), field + ".JobID");
        }

        static void deployment(Deployment d, String field) {
            text(d.id(), field + ".ID");
            text(d.namespace(), field + ".Namespace");
            text(d.jobId(), field + ".JobID");
            text(d.status(), field + ".Status");
            each(d.taskGroups().keySet(), field + ".TaskGroups", g -> text(g, field + ".TaskGroups"));
            each(d.taskGroups().values(), field + ".TaskGroups", s -> { });
        }

        static void evals(List<Evaluation> evals) {
            each(evals, "Evals", eval -> eval(eval, "Evals"));
        }

        static void token(AclToken token) {
            present(token, "Token");
            text(token.accessorId(), "Token.AccessorID");
            text(token.secretId(), "Token.SecretID");
            oneOf(token.type(), "Token.Type", AclToken.CLIENT, AclToken.MANAGEMENT);
        }

        /** Updates name an allocation by ID alone; the rest is read from the stored one. */
        static void allocs(List<Allocation> allocs, String field) {
            each(allocs, field, alloc -> text(alloc.id(), field + ".ID"));
        }
    }

    /** What applying a command returned: Nomad's write response fields, or a rejection with its HTTP code. */
    record Result(long index, long jobModifyIndex, long evalCreateIndex, int errorCode, String error) {
        static Result ok(long index, long jobModifyIndex, long evalCreateIndex) {
            return new Result(index, jobModifyIndex, evalCreateIndex, 0, null);
        }

        static Result ok(long index) {
            return new Result(index, 0, index, 0, null);
        }

        static Result rejected(long index, int code, String error) {
            return new Result(index, 0, 0, code, error);
        }
    }
}
