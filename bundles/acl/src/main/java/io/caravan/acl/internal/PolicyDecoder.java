package io.caravan.acl.internal;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import io.caravan.acl.PolicyRules;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.Capability;
import io.caravan.api.acl.Scope;

/**
 * Checks a policy's {@link Node}s against Nomad's policy language and expands coarse policies into capabilities.
 * Strict, as Nomad is when a policy is written: the first unknown block or attribute, duplicate block, bad policy or
 * unknown capability is a 400 naming it and its line:column.
 */
public final class PolicyDecoder {
    private static final String PREFIX = "Failed to parse ACL policy: ";
    /** Nomad's rule for namespace and host volume names in policies ({@code *} makes a glob). */
    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9*-]{1,128}");

    static final String DENY = "deny";
    private static final List<String> NAMESPACE_READ = List.of(Capability.LIST_JOBS, Capability.PARSE_JOB,
            Capability.READ_JOB, Capability.CSI_LIST_VOLUME, Capability.CSI_READ_VOLUME, Capability.READ_JOB_SCALING,
            Capability.LIST_SCALING_POLICIES, Capability.READ_SCALING_POLICY, Capability.HOST_VOLUME_READ);
    private static final List<String> NAMESPACE_WRITE_EXTRA = List.of(Capability.SCALE_JOB, Capability.SUBMIT_JOB,
            Capability.DISPATCH_JOB, Capability.READ_LOGS, Capability.READ_FS, Capability.ALLOC_EXEC,
            Capability.ALLOC_LIFECYCLE, Capability.CSI_MOUNT_VOLUME, Capability.CSI_WRITE_VOLUME,
            Capability.SUBMIT_RECOMMENDATION, Capability.HOST_VOLUME_CREATE);
    private static final List<String> NAMESPACE_SCALE = List.of(Capability.LIST_SCALING_POLICIES,
            Capability.READ_SCALING_POLICY, Capability.READ_JOB_SCALING, Capability.SCALE_JOB, Capability.READ_JOB,
            Capability.SUBMIT_RECOMMENDATION);
    /** Nomad 2's finer job, deployment and allocation capabilities: named so the error can say what to use. */
    private static final Set<String> NOT_YET = Set.of("register-job", "revert-job", "deregister-job", "purge-job",
            "evaluate-job", "plan-job", "tag-job-version", "stable-job", "fail-deployment", "pause-deployment",
            "promote-deployment", "unblock-deployment", "cancel-deployment", "set-alloc-health-deployment",
            "gc-allocation", "pause-allocation", "force-periodic-job", "delete-service-registration");

    static final List<String> HOST_VOLUME_CAPABILITIES = List.of(DENY, "mount-readonly", "mount-readwrite");
    static final List<String> VARIABLE_CAPABILITIES = List.of(DENY, "read", "write", "list", "destroy");
    static final List<String> NODE_POOL_CAPABILITIES = List.of(DENY, "delete", "read", "write");
    /** Node pool names also take '_' (Nomad's pool name rule), and the wildcard. */
    private static final Pattern NODE_POOL_NAME = Pattern.compile("[a-zA-Z0-9_*-]{1,128}");

    private static final List<String> COARSE_LEVELS = List.of("deny", "read", "write");
    private static final List<String> PLUGIN_LEVELS = List.of("deny", "list", "read", "write");

    private PolicyDecoder() {
    }

    /** A 400 whose message reads {@code Failed to parse ACL policy: line:column: message}. */
    static CaravanException error(Node.Pos pos, String message) {
        return new CaravanException(ErrorCode.BAD_REQUEST, PREFIX + (pos.line() > 0 ? pos + ": " : "") + message);
    }

    public static PolicyRules decode(String text) {
        if (text == null || text.isBlank()) {
            throw error(Node.Pos.UNKNOWN, "the policy is empty: it needs at least one rule");
        }
        Node.Obj root = PolicySource.read(text);
        List<PolicyRules.Namespace> namespaces = new ArrayList<>();
        List<PolicyRules.HostVolume> hostVolumes = new ArrayList<>();
        List<PolicyRules.NodePool> nodePools = new ArrayList<>();
        Map<Scope, Access> scopes = new EnumMap<>(Scope.class);
        for (Node.Entry entry : root.entries()) {
            switch (entry.key()) {
                case "namespace" -> {
                    for (Node.Entry rule : labelled(entry)) {
                        namespaces.add(namespace(rule));
                    }
                }
                case "host_volume" -> {
                    for (Node.Entry rule : labelled(entry)) {
                        hostVolumes.add(hostVolume(rule));
                    }
                }
                case "node" -> scope(entry, Scope.NODE, COARSE_LEVELS, scopes);
                case "agent" -> scope(entry, Scope.AGENT, COARSE_LEVELS, scopes);
                case "operator" -> scope(entry, Scope.OPERATOR, COARSE_LEVELS, scopes);
                case "quota" -> scope(entry, Scope.QUOTA, COARSE_LEVELS, scopes);
                case "plugin" -> scope(entry, Scope.PLUGIN, PLUGIN_LEVELS, scopes);
                case "node_pool" -> {
                    for (Node.Entry rule : labelled(entry)) {
                        nodePools.add(nodePool(rule));
                    }
                }
                case "sentinel" -> throw error(entry.keyPos(), "sentinel rules are not supported (Nomad Enterprise)");
                default -> throw error(entry.keyPos(), "unknown block " + quote(entry.key())
                        + "; expected namespace, host_volume, node_pool, node, agent, operator, quota or plugin");
            }
        }
        if (namespaces.isEmpty() && hostVolumes.isEmpty() && nodePools.isEmpty() && scopes.isEmpty()) {
            throw error(root.pos(), "the policy is empty: it needs at least one rule");
        }
        return new PolicyRules(namespaces, hostVolumes, nodePools, scopes);
    }

    private static PolicyRules.Namespace namespace(Node.Entry rule) {
        String name = rule.key();
        String where = "namespace " + quote(name);
        checkName(rule, "namespace");
        String policy = "";
        Set<String> capabilities = new LinkedHashSet<>();
        List<PolicyRules.VariablePath> variables = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Node.Entry e : single(rule, where).entries()) {
            once(e, seen, where);
            switch (e.key()) {
                case "policy" -> policy = oneOf(e, List.of("deny", "read", "write", "scale"), where);
                case "capabilities" -> {
                    for (Node item : strings(e, where)) {
                        String c = (String) ((Node.Scalar) item).value();
                        if (NOT_YET.contains(c)) {
                            throw error(item.pos(), "capability " + quote(c) + " in " + where
                                    + " is not supported yet; grant the coarser one (such as submit-job) instead");
                        }
                        if (!Capability.ALL.contains(c)) {
                            throw error(item.pos(), "unknown capability " + quote(c) + " in " + where);
                        }
                        capabilities.add(c);
                    }
                }
                case "variables" -> variables.addAll(variables(e, where));
                default -> throw error(e.keyPos(), "unknown attribute or block " + quote(e.key()) + " in " + where
                        + "; expected policy, capabilities or variables");
            }
        }
        capabilities.addAll(switch (policy) {
            case "deny" -> List.of(DENY);
            case "read" -> NAMESPACE_READ;
            case "write" -> concat(NAMESPACE_READ, NAMESPACE_WRITE_EXTRA);
            case "scale" -> NAMESPACE_SCALE;
            default -> List.of();
        });
        // Host volume capabilities imply the weaker ones, as in Nomad.
        if (capabilities.contains(Capability.HOST_VOLUME_WRITE)) {
            capabilities.addAll(List.of(Capability.HOST_VOLUME_REGISTER, Capability.HOST_VOLUME_DELETE));
        }
        if (capabilities.contains(Capability.HOST_VOLUME_REGISTER)) {
            capabilities.add(Capability.HOST_VOLUME_CREATE);
        }
        if (capabilities.contains(Capability.HOST_VOLUME_CREATE)) {
            capabilities.add(Capability.HOST_VOLUME_READ);
        }
        return new PolicyRules.Namespace(name, policy, denyWins(capabilities), variables);
    }

    private static List<PolicyRules.VariablePath> variables(Node.Entry block, String namespace) {
        String where = "variables block of " + namespace;
        List<PolicyRules.VariablePath> paths = new ArrayList<>();
        for (Node.Entry e : single(block, where).entries()) {
            if (!e.key().equals("path")) {
                throw error(e.keyPos(), "unknown attribute or block " + quote(e.key()) + " in " + where
                        + "; expected path blocks");
            }
            for (Node.Entry rule : labelled(e)) {
                String path = rule.key();
                String pathWhere = "path " + quote(path) + " in " + namespace;
                if (path.isEmpty()) {
                    throw error(rule.keyPos(), "a variables path in " + namespace + " needs a path or glob");
                }
                if (path.startsWith("/")) {
                    throw error(rule.keyPos(), "variables path " + quote(path) + " in " + namespace
                            + " must not start with '/'");
                }
                Set<String> capabilities = new LinkedHashSet<>();
                Set<String> seen = new HashSet<>();
                for (Node.Entry attr : single(rule, pathWhere).entries()) {
                    once(attr, seen, pathWhere);
                    if (!attr.key().equals("capabilities")) {
                        throw error(attr.keyPos(), "unknown attribute " + quote(attr.key()) + " in " + pathWhere
                                + "; expected capabilities");
                    }
                    for (Node item : strings(attr, pathWhere)) {
                        String c = (String) ((Node.Scalar) item).value();
                        if (!VARIABLE_CAPABILITIES.contains(c)) {
                            throw error(item.pos(), "unknown variables capability " + quote(c) + " in " + pathWhere
                                    + "; expected one of " + String.join(", ", VARIABLE_CAPABILITIES));
                        }
                        capabilities.add(c);
                    }
                }
                if (capabilities.contains("read")) {
                    capabilities.add("list"); // reading a path lets one list it, as in Nomad
                }
                paths.add(new PolicyRules.VariablePath(path, denyWins(capabilities)));
            }
        }
        if (paths.isEmpty()) {
            throw error(block.keyPos(), "the variables block of " + namespace + " has no path blocks");
        }
        return paths;
    }

    private static PolicyRules.HostVolume hostVolume(Node.Entry rule) {
        checkName(rule, "host_volume");
        Named named = named(rule, "host_volume", HOST_VOLUME_CAPABILITIES, Map.of(DENY, List.of(DENY),
                "read", List.of("mount-readonly"), "write", List.of("mount-readonly", "mount-readwrite")));
        return new PolicyRules.HostVolume(rule.key(), named.policy(), named.capabilities());
    }

    /** Nomad's {@code node_pool} rule: {@code write} also deletes, as in Nomad. */
    private static PolicyRules.NodePool nodePool(Node.Entry rule) {
        if (!NODE_POOL_NAME.matcher(rule.key()).matches()) {
            throw error(rule.keyPos(), "invalid node_pool name " + quote(rule.key())
                    + ": use 1 to 128 letters, digits, '-', '_' or the wildcard '*'");
        }
        Named named = named(rule, "node_pool", NODE_POOL_CAPABILITIES, Map.of(DENY, List.of(DENY),
                "read", List.of("read"), "write", List.of("delete", "read", "write")));
        return new PolicyRules.NodePool(rule.key(), named.policy(), named.capabilities());
    }

    /** A rule's coarse policy as written and the capabilities it grants (written plus expanded). */
    private record Named(String policy, Set<String> capabilities) {}

    /** A labelled rule of {@code policy} and {@code capabilities} ({@code host_volume}, {@code node_pool}). */
    private static Named named(Node.Entry rule, String kind, List<String> known,
                               Map<String, List<String>> expansion) {
        String where = kind + " " + quote(rule.key());
        String policy = "";
        Set<String> capabilities = new LinkedHashSet<>();
        Set<String> seen = new HashSet<>();
        for (Node.Entry e : single(rule, where).entries()) {
            once(e, seen, where);
            switch (e.key()) {
                case "policy" -> policy = oneOf(e, COARSE_LEVELS, where);
                case "capabilities" -> {
                    for (Node item : strings(e, where)) {
                        String c = (String) ((Node.Scalar) item).value();
                        if (!known.contains(c)) {
                            throw error(item.pos(), "unknown capability " + quote(c) + " in " + where
                                    + "; expected one of " + String.join(", ", known));
                        }
                        capabilities.add(c);
                    }
                }
                default -> throw error(e.keyPos(), "unknown attribute " + quote(e.key()) + " in " + where
                        + "; expected policy or capabilities");
            }
        }
        capabilities.addAll(expansion.getOrDefault(policy, List.of()));
        return new Named(policy, denyWins(capabilities));
    }

    private static void scope(Node.Entry block, Scope scope, List<String> levels, Map<Scope, Access> scopes) {
        String where = scope.policyName();
        if (scopes.containsKey(scope)) {
            throw error(block.keyPos(), "duplicate " + where + " block");
        }
        Node.Obj body = single(block, where);
        String policy = null;
        Set<String> seen = new HashSet<>();
        for (Node.Entry e : body.entries()) {
            once(e, seen, where);
            if (e.key().equals("policy")) {
                policy = oneOf(e, levels, where);
            } else if (scope == Scope.OPERATOR && e.key().equals("capabilities")) {
                throw error(e.keyPos(), "operator capabilities are not supported yet; use policy = \"read\" or"
                        + " \"write\"");
            } else {
                throw error(e.keyPos(), "unknown attribute " + quote(e.key()) + " in " + where
                        + "; expected policy");
            }
        }
        if (policy == null) {
            throw error(block.keyPos(), where + " block needs a policy: one of " + String.join(", ", levels));
        }
        scopes.put(scope, Access.valueOf(policy.toUpperCase(Locale.ROOT)));
    }

    /**
     * The rules of a labelled block type: in HCL one per block, in JSON an object of name to body, or a list of
     * such objects.
     */
    private static List<Node.Entry> labelled(Node.Entry block) {
        List<Node.Entry> rules = new ArrayList<>();
        collect(block, block.value(), rules);
        return rules;
    }

    private static void collect(Node.Entry block, Node value, List<Node.Entry> into) {
        if (value instanceof Node.Arr arr) {
            for (Node item : arr.items()) {
                collect(block, item, into);
            }
        } else if (value instanceof Node.Obj obj) {
            into.addAll(obj.entries());
        } else {
            throw error(value.pos(), block.key() + " must be a block, not " + Node.describe(value));
        }
    }

    /** The body of a block or of a labelled rule (in JSON an object, or a list holding one). */
    private static Node.Obj single(Node.Entry block, String where) {
        Node value = block.value();
        if (value instanceof Node.Arr arr && arr.items().size() == 1) {
            value = arr.items().get(0);
        }
        if (value instanceof Node.Obj obj) {
            return obj;
        }
        throw error(value.pos(), where + (value instanceof Node.Arr ? " must be a single block, not several"
                : " must be a block, not " + Node.describe(value)));
    }

    private static void checkName(Node.Entry rule, String type) {
        if (!NAME.matcher(rule.key()).matches()) {
            throw error(rule.keyPos(), "invalid " + type + " name " + quote(rule.key())
                    + ": use 1 to 128 letters, digits, '-' or the wildcard '*'");
        }
    }

    private static void once(Node.Entry e, Set<String> seen, String where) {
        if (!seen.add(e.key())) {
            throw error(e.keyPos(), quote(e.key()) + " is set twice in " + where);
        }
    }

    private static String oneOf(Node.Entry e, List<String> allowed, String where) {
        if (e.value() instanceof Node.Scalar s && s.value() instanceof String v) {
            if (allowed.contains(v)) {
                return v;
            }
            throw error(e.value().pos(), "invalid " + e.key() + " " + quote(v) + " in " + where + "; expected one of "
                    + String.join(", ", allowed));
        }
        throw error(e.value().pos(), e.key() + " in " + where + " must be a string, not "
                + Node.describe(e.value()));
    }

    /** A list of strings (each item keeps its position). */
    private static List<Node> strings(Node.Entry e, String where) {
        if (e.value() instanceof Node.Arr arr) {
            for (Node item : arr.items()) {
                if (!(item instanceof Node.Scalar s && s.value() instanceof String)) {
                    throw error(item.pos(), e.key() + " in " + where + " must be a list of strings, not hold "
                            + Node.describe(item));
                }
            }
            return arr.items();
        }
        throw error(e.value().pos(), e.key() + " in " + where + " must be a list of strings, not "
                + Node.describe(e.value()));
    }

    /** A rule that denies holds only {@code deny}: it grants nothing, whatever else it lists. */
    private static Set<String> denyWins(Set<String> capabilities) {
        return capabilities.contains(DENY) ? Set.of(DENY) : capabilities;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static String quote(String s) {
        return '"' + s + '"';
    }
}
