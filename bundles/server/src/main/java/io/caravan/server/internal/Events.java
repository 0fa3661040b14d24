package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.caravan.api.acl.AclAuthMethod;
import io.caravan.api.acl.AclBindingRule;
import io.caravan.api.acl.AclPolicy;
import io.caravan.api.acl.AclRole;
import io.caravan.api.acl.AclToken;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.state.RowChange;

/**
 * Nomad's event stream events, derived from what a Raft entry changed in the state store: the command gives every
 * event of the entry its {@code Type} (a job register's evaluation is a {@code JobRegistered} event of topic
 * {@code Evaluation}, as in Nomad), the changed row its {@code Topic}, {@code Key}, {@code FilterKeys} and
 * {@code Payload}. Commands Nomad publishes nothing for (scheduler config, variables, keyring, namespaces…) give no
 * events. This is the one place that mapping lives.
 */
final class Events {
    static final String ALL = "*";

    // Nomad's topics.
    static final String JOB = "Job";
    static final String ALLOCATION = "Allocation";
    static final String EVALUATION = "Evaluation";
    static final String DEPLOYMENT = "Deployment";
    static final String NODE = "Node";
    static final String SERVICE = "Service";
    static final String ACL_TOKEN = "ACLToken";
    static final String ACL_POLICY = "ACLPolicy";
    static final String ACL_ROLE = "ACLRole";
    static final String ACL_AUTH_METHOD = "ACLAuthMethod";
    static final String ACL_BINDING_RULE = "ACLBindingRule";
    static final List<String> TOPICS = List.of(JOB, ALLOCATION, EVALUATION, DEPLOYMENT, NODE, SERVICE, ACL_TOKEN,
            ACL_POLICY, ACL_ROLE, ACL_AUTH_METHOD, ACL_BINDING_RULE);

    /** Nomad's {@code structs.Event}. {@code Namespace} is empty for objects outside namespaces. */
    record Event(String topic, String type, String key, String namespace, List<String> filterKeys, long index,
                 Map<String, Object> payload) {}

    private Events() {
    }

    /** Nomad's event type per command; a command not listed publishes nothing. */
    private static final Map<Class<? extends Command>, String> TYPES = Map.ofEntries(
            Map.entry(Command.JobRegister.class, "JobRegistered"),
            Map.entry(Command.JobDeregister.class, "JobDeregistered"),
            Map.entry(Command.NodeRegister.class, "NodeRegistration"),
            Map.entry(Command.NodeDeregister.class, "NodeDeregistration"),
            Map.entry(Command.NodeStatusUpdate.class, "NodeStreamEvent"),
            // Nomad reports eligibility changes as drain events too.
            Map.entry(Command.NodeEligibilityUpdate.class, "NodeDrain"),
            Map.entry(Command.NodeDrainUpdate.class, "NodeDrain"),
            Map.entry(Command.EvalUpsert.class, "EvaluationUpdated"),
            Map.entry(Command.AllocClientUpdate.class, "AllocationUpdated"),
            Map.entry(Command.AllocTransitionUpdate.class, "AllocationUpdateDesiredStatus"),
            Map.entry(Command.PlanApply.class, "PlanResult"),
            Map.entry(Command.DeploymentStatusChange.class, "DeploymentStatusUpdate"),
            Map.entry(Command.DeploymentPromotion.class, "DeploymentPromotion"),
            Map.entry(Command.DeploymentAllocHealth.class, "DeploymentAllocHealth"),
            Map.entry(Command.AclTokenUpsert.class, "ACLTokenUpserted"),
            Map.entry(Command.AclTokenDelete.class, "ACLTokenDeleted"),
            Map.entry(Command.AclPolicyUpsert.class, "ACLPolicyUpserted"),
            Map.entry(Command.AclPolicyDelete.class, "ACLPolicyDeleted"),
            Map.entry(Command.AclRoleUpsert.class, "ACLRoleUpserted"),
            Map.entry(Command.AclRoleDelete.class, "ACLRoleDeleted"),
            Map.entry(Command.AclAuthMethodUpsert.class, "ACLAuthMethodUpserted"),
            Map.entry(Command.AclAuthMethodDelete.class, "ACLAuthMethodDeleted"),
            Map.entry(Command.AclBindingRuleUpsert.class, "ACLBindingRuleUpserted"),
            Map.entry(Command.AclBindingRuleDelete.class, "ACLBindingRuleDeleted"),
            Map.entry(Command.ServiceRegistrationUpsert.class, "ServiceRegistration"),
            Map.entry(Command.ServiceRegistrationDelete.class, "ServiceDeregistration"));

    /** The event type of everything {@code command} changed; empty when Nomad publishes nothing for it. */
    static Optional<String> type(Command command) {
        return Optional.ofNullable(TYPES.get(command.getClass()));
    }

    /** The events of one applied entry, in the order its rows were first written. */
    static List<Event> of(long index, Command command, List<RowChange> changes) {
        Optional<String> type = type(command);
        if (type.isEmpty()) {
            return List.of();
        }
        List<Event> events = new ArrayList<>();
        for (RowChange change : changes) {
            of(index, type.get(), change).ifPresent(events::add);
        }
        return events;
    }

    /**
     * The event of one changed row, if its table has a topic. As in Nomad, only some objects announce their deletion
     * (ACL objects, nodes, services); a purged job or a garbage-collected allocation does not.
     */
    static Optional<Event> of(long index, String type, RowChange change) {
        Object row = change.row();
        if (row instanceof AclToken t) {
            return Optional.of(event(ACL_TOKEN, type, t.accessorId(), "", null, index,
                    Map.of("ACLToken", withoutSecret(t))));
        }
        if (row instanceof AclPolicy p) {
            return Optional.of(event(ACL_POLICY, type, p.name(), "", null, index, Map.of("ACLPolicy", p)));
        }
        if (row instanceof AclRole r) {
            return Optional.of(event(ACL_ROLE, type, r.id(), "", List.of(r.name()), index, Map.of("ACLRole", r)));
        }
        if (row instanceof AclAuthMethod m) {
            return Optional.of(event(ACL_AUTH_METHOD, type, m.name(), "", null, index, Map.of("AuthMethod", m)));
        }
        if (row instanceof AclBindingRule b) {
            return Optional.of(event(ACL_BINDING_RULE, type, b.id(), "", List.of(b.authMethod()), index,
                    Map.of("ACLBindingRule", b)));
        }
        if (row instanceof Node n) {
            // A node's SecretID is never written to the API (the model's JSON leaves it out).
            return Optional.of(event(NODE, type, n.id(), "", null, index, Map.of("Node", n)));
        }
        if (row instanceof ServiceRegistration s) {
            return Optional.of(event(SERVICE, type, s.id(), s.namespace(), keys(s.jobId(), s.serviceName()), index,
                    Map.of("Service", s)));
        }
        if (change.deleted()) {
            return Optional.empty();
        }
        if (row instanceof Evaluation e) {
            return Optional.of(event(EVALUATION, type, e.id(), e.namespace(), keys(e.jobId(), e.deploymentId()),
                    index, Map.of("Evaluation", e)));
        }
        if (row instanceof Allocation a) {
            // The allocation's job is left out to keep events small, as Nomad does.
            return Optional.of(event(ALLOCATION, type, a.id(), a.namespace(), keys(a.jobId(), a.deploymentId()),
                    index, Map.of("Allocation", a.toBuilder().job(null).build())));
        }
        if (row instanceof Job j && change.table().equals(NomadTables.JOBS.name())) {
            return Optional.of(event(JOB, type, j.id(), j.namespace(), null, index, Map.of("Job", j)));
        }
        if (row instanceof Deployment d) {
            return Optional.of(event(DEPLOYMENT, type, d.id(), d.namespace(), keys(d.jobId()), index,
                    Map.of("Deployment", d)));
        }
        return Optional.empty();
    }

    private static Event event(String topic, String type, String key, String namespace, List<String> filterKeys,
                               long index, Map<String, Object> payload) {
        return new Event(topic, type, key, namespace == null ? "" : namespace, filterKeys, index, payload);
    }

    /** Filter keys as Nomad lists them: an unset one is an empty string. */
    private static List<String> keys(String... keys) {
        List<String> out = new ArrayList<>(keys.length);
        for (String k : keys) {
            out.add(k == null ? "" : k);
        }
        return out;
    }

    private static AclToken withoutSecret(AclToken t) {
        return new AclToken(t.accessorId(), "", t.name(), t.type(), t.policies(), t.roles(), t.global(),
                t.createTime(), t.expirationTime(), t.expirationTtl(), t.createIndex(), t.modifyIndex());
    }
}
