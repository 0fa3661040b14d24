package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Capability;
import io.caravan.api.acl.Scope;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.Task;
import io.caravan.api.model.TaskGroup;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.state.Indexed;
import io.caravan.state.StateSnapshot;
import io.caravan.state.WatchSet;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's search API: {@code POST /v1/search} (IDs by prefix, per context) and {@code POST /v1/search/fuzzy}
 * (names containing a text). Both are open at the route, as in Nomad, and decide here per context what the caller
 * may see: a context it may not read at all is a 403 when asked for by name and left out of {@code all}.
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class SearchRoutes implements ApiRoutes {
    static final ApiEndpoint PREFIX = ApiEndpoint.of("Search.PrefixSearch", AclRule.PUBLIC);
    static final ApiEndpoint FUZZY = ApiEndpoint.of("Search.FuzzySearch", AclRule.PUBLIC);

    /** Nomad's cap on matches per context. */
    static final int LIMIT = 20;
    /** Nomad's {@code search { min_term_length }} default and fuzzy {@code limit_results}. */
    static final int MIN_TERM = 2;
    static final int FUZZY_LIMIT = 100;

    /** Nomad's open-source contexts, in the order {@code all} searches them. */
    static final List<String> CONTEXTS = List.of("allocs", "deployments", "evals", "jobs", "nodes", "node_pools",
            "namespaces", "plugins", "volumes", "scaling_policy", "variables");
    /** Contexts keyed by UUID: an odd-length prefix is cut to even length, as Nomad's UUID index needs. */
    private static final List<String> UUID_CONTEXTS = List.of("allocs", "deployments", "evals", "nodes");

    private final StateReads reads;

    @Activate
    public SearchRoutes(@Reference ServerState state, @Reference RaftWrites writes) {
        this.reads = new StateReads(state.store(), writes);
    }

    @Override
    public void register(io.caravan.http.RouteTable routes) {
        routes.routeAsync("POST", "/v1/search", PREFIX, this::prefix)
                .routeAsync("PUT", "/v1/search", PREFIX, this::prefix)
                .routeAsync("POST", "/v1/search/fuzzy", FUZZY, this::fuzzy)
                .routeAsync("PUT", "/v1/search/fuzzy", FUZZY, this::fuzzy);
    }

    /** Nomad's {@code SearchResponse} and {@code FuzzySearchResponse}. */
    record Answer<M>(Map<String, List<M>> matches, Map<String, Boolean> truncations) {}

    /** One fuzzy match: the object's name or ID and where it lives (namespace, job, group, ...). */
    record FuzzyMatch(String id, List<String> scope) {}

    private CompletionStage<ApiResponse> prefix(ApiRequest r) {
        JsonNode body = body(r);
        String prefix = field(body, "Prefix").asText("");
        List<String> contexts = contexts(r, field(body, "Context").asText(""));
        return reads.query(r, (s, ws) -> {
            Map<String, List<String>> matches = new LinkedHashMap<>();
            Map<String, Boolean> truncations = new LinkedHashMap<>();
            for (String context : contexts) {
                String asked = UUID_CONTEXTS.contains(context) && prefix.length() % 2 == 1
                        ? prefix.substring(0, prefix.length() - 1) : prefix;
                List<String> ids = ids(s, r, context, asked).limit(LIMIT + 1).toList();
                matches.put(context, ids.subList(0, Math.min(LIMIT, ids.size())));
                truncations.put(context, ids.size() > LIMIT);
            }
            return new Indexed<>(new Answer<>(matches, truncations), index(s, ws, contexts));
        });
    }

    private CompletionStage<ApiResponse> fuzzy(ApiRequest r) {
        JsonNode body = body(r);
        String text = field(body, "Text").asText("");
        if (text.length() < MIN_TERM) {
            throw CaravanException.badRequest("fuzzy search query must be at least " + MIN_TERM
                    + " characters, got " + text.length());
        }
        List<String> contexts = contexts(r, field(body, "Context").asText("")).stream()
                .filter(c -> !UUID_CONTEXTS.contains(c) || c.equals("allocs") || c.equals("nodes")).toList();
        String needle = text.toLowerCase(Locale.ROOT);
        return reads.query(r, (s, ws) -> {
            Map<String, List<FuzzyMatch>> found = new LinkedHashMap<>();
            for (String context : contexts) {
                fuzzy(s, r, context, needle, found);
            }
            Map<String, List<FuzzyMatch>> matches = new LinkedHashMap<>();
            Map<String, Boolean> truncations = new LinkedHashMap<>();
            found.forEach((context, all) -> {
                List<FuzzyMatch> sorted = all.stream().distinct().sorted(Comparator
                        .comparingInt((FuzzyMatch m) -> m.id().toLowerCase(Locale.ROOT).indexOf(needle))
                        .thenComparing(FuzzyMatch::id)).toList();
                matches.put(context, sorted.subList(0, Math.min(FUZZY_LIMIT, sorted.size())));
                truncations.put(context, sorted.size() > FUZZY_LIMIT);
            });
            return new Indexed<>(new Answer<>(matches, truncations), index(s, ws, contexts));
        });
    }

    /** A body field by name in any case, as Nomad's JSON decoding matches them. */
    private static JsonNode field(JsonNode body, String name) {
        for (var names = body.fieldNames(); names.hasNext(); ) {
            String n = names.next();
            if (n.equalsIgnoreCase(name)) {
                return body.get(n);
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    private static JsonNode body(ApiRequest r) {
        JsonNode body = r.body(JsonNode.class);
        if (body == null || !body.isObject()) {
            throw CaravanException.badRequest("Request body must be a search request object");
        }
        return body;
    }

    /**
     * The contexts a request searches: the one it names (a 403 if the caller may read nothing there, as Nomad), or
     * for {@code all} those the caller may read (a 403 if none).
     */
    static List<String> contexts(ApiRequest r, String context) {
        Acl acl = r.identity().acl();
        String ns = r.options().namespace();
        if (context.isEmpty()) {
            throw CaravanException.invalid("Context", "missing");
        }
        if (!"all".equals(context)) {
            if (!CONTEXTS.contains(context)) {
                throw CaravanException.badRequest("context must be one of " + String.join(", ", CONTEXTS)
                        + " or all; got \"" + context + "\"");
            }
            if (!allowed(acl, ns, context)) {
                throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
            }
            return List.of(context);
        }
        List<String> readable = CONTEXTS.stream().filter(c -> allowed(acl, ns, c)).toList();
        if (readable.isEmpty()) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
        }
        return readable;
    }

    /** Nomad's {@code sufficientSearchPerms} per context, in the namespace searched ({@code *}: in any). */
    static boolean allowed(Acl acl, String ns, String context) {
        if (acl.isManagement()) {
            return true;
        }
        return switch (context) {
            case "nodes" -> acl.allow(Scope.NODE, Access.READ);
            case "node_pools" -> acl.allowNodePoolSearch();
            case "namespaces" -> "*".equals(ns) ? Capability.ALL.stream().anyMatch(acl::allowAnyNamespace)
                    : JobRoutes.anyCapability(acl, ns);
            case "variables" -> acl.allowVariableSearch(ns);
            case "plugins" -> acl.allow(Scope.PLUGIN, Access.LIST);
            case "volumes" -> readJob(acl, ns, Capability.CSI_LIST_VOLUME);
            default -> readJob(acl, ns, Capability.READ_JOB);
        };
    }

    private static boolean readJob(Acl acl, String ns, String capability) {
        return "*".equals(ns) ? acl.allowAnyNamespace(capability) : acl.allowNamespace(ns, capability);
    }

    /** IDs of {@code context} starting with {@code prefix}, in key order, only of namespaces the caller may read. */
    private static Stream<String> ids(StateSnapshot s, ApiRequest r, String context, String prefix) {
        Acl acl = r.identity().acl();
        String ns = r.options().namespace();
        Function<String, Boolean> inNamespace = rowNs -> ("*".equals(ns) || ns.equals(rowNs))
                && acl.allowNamespace(rowNs, Capability.READ_JOB);
        return switch (context) {
            case "jobs" -> ("*".equals(ns) ? s.all(NomadTables.JOBS) : s.prefix(NomadTables.JOBS,
                    NomadTables.key(ns, ""))).filter(j -> j.id().startsWith(prefix))
                    .filter(j -> inNamespace.apply(j.namespace())).map(Job::id);
            case "evals" -> s.prefix(NomadTables.EVALS, prefix).filter(e -> inNamespace.apply(e.namespace()))
                    .map(e -> e.id());
            case "allocs" -> s.prefix(NomadTables.ALLOCS, prefix).filter(a -> inNamespace.apply(a.namespace()))
                    .map(Allocation::id);
            case "deployments" -> s.prefix(NomadTables.DEPLOYMENTS, prefix)
                    .filter(d -> inNamespace.apply(d.namespace())).map(d -> d.id());
            case "nodes" -> s.prefix(NomadTables.NODES, prefix).map(Node::id);
            case "node_pools" -> NodePools.all(s).map(NodePools.NodePool::name).filter(n -> n.startsWith(prefix))
                    .filter(n -> acl.allowNodePool(n, "read"));
            case "namespaces" -> Namespaces.all(s).map(Namespaces.Namespace::name).filter(n -> n.startsWith(prefix))
                    .filter(n -> JobRoutes.anyCapability(acl, n));
            case "variables" -> ("*".equals(ns) ? s.all(NomadTables.VARIABLES) : s.prefix(NomadTables.VARIABLES,
                    NomadTables.key(ns, ""))).map(Variable.Entry::variable)
                    .filter(v -> v.path().startsWith(prefix))
                    .filter(v -> acl.allowVariable(v.namespace(), v.path(), "list"))
                    .map(Variable::path);
            // No CSI plugins, volumes or scaling policies exist in Caravan: these contexts are always empty.
            default -> Stream.empty();
        };
    }

    /** Fuzzy matches of {@code context}, and for jobs those of their groups, tasks, services, images and commands. */
    private static void fuzzy(StateSnapshot s, ApiRequest r, String context, String needle,
                              Map<String, List<FuzzyMatch>> found) {
        Acl acl = r.identity().acl();
        String ns = r.options().namespace();
        switch (context) {
            case "jobs" -> ("*".equals(ns) ? s.all(NomadTables.JOBS) : s.prefix(NomadTables.JOBS,
                    NomadTables.key(ns, ""))).filter(j -> acl.allowNamespace(j.namespace(), Capability.READ_JOB))
                    .forEach(job -> fuzzyJob(job, needle, found));
            case "allocs" -> s.all(NomadTables.ALLOCS)
                    .filter(a -> ("*".equals(ns) || ns.equals(a.namespace()))
                            && acl.allowNamespace(a.namespace(), Capability.READ_JOB))
                    .filter(a -> contains(a.name(), needle))
                    .forEach(a -> add(found, "allocs", a.name(), a.namespace(), a.id()));
            case "nodes" -> s.all(NomadTables.NODES).filter(n -> contains(n.name(), needle))
                    .forEach(n -> add(found, "nodes", n.name(), n.id()));
            case "node_pools" -> NodePools.all(s).filter(p -> contains(p.name(), needle))
                    .filter(p -> acl.allowNodePool(p.name(), "read"))
                    .forEach(p -> add(found, "node_pools", p.name()));
            case "namespaces" -> Namespaces.all(s).filter(n -> contains(n.name(), needle))
                    .filter(n -> JobRoutes.anyCapability(acl, n.name()))
                    .forEach(n -> add(found, "namespaces", n.name()));
            case "variables" -> s.all(NomadTables.VARIABLES).map(Variable.Entry::variable)
                    .filter(v -> ("*".equals(ns) || ns.equals(v.namespace())) && contains(v.path(), needle))
                    .filter(v -> acl.allowVariable(v.namespace(), v.path(), "list"))
                    .forEach(v -> add(found, "variables", v.path(), v.namespace()));
            default -> found.putIfAbsent(context, new ArrayList<>());
        }
    }

    private static void fuzzyJob(Job job, String needle, Map<String, List<FuzzyMatch>> found) {
        found.computeIfAbsent("jobs", k -> new ArrayList<>());
        if (contains(job.name(), needle)) {
            add(found, "jobs", job.name(), job.namespace(), job.id());
        }
        for (TaskGroup group : job.taskGroups() == null ? List.<TaskGroup>of() : job.taskGroups()) {
            if (contains(group.name(), needle)) {
                add(found, "groups", group.name(), job.namespace(), job.id());
            }
            for (Task task : group.tasks() == null ? List.<Task>of() : group.tasks()) {
                if (contains(task.name(), needle)) {
                    add(found, "tasks", task.name(), job.namespace(), job.id(), group.name());
                }
                Map<String, Object> config = task.config() == null ? Map.of() : task.config();
                if (config.get("image") instanceof String image && contains(image, needle)) {
                    add(found, "images", image, job.namespace(), job.id(), group.name(), task.name());
                }
                if (config.get("command") instanceof String command && contains(command, needle)) {
                    add(found, "commands", command, job.namespace(), job.id(), group.name(), task.name());
                }
                if (config.get("class") instanceof String javaClass && contains(javaClass, needle)) {
                    add(found, "classes", javaClass, job.namespace(), job.id(), group.name(), task.name());
                }
            }
        }
    }

    private static boolean contains(String value, String needle) {
        return value != null && value.toLowerCase(Locale.ROOT).contains(needle);
    }

    private static void add(Map<String, List<FuzzyMatch>> found, String context, String id, String... scope) {
        found.computeIfAbsent(context, k -> new ArrayList<>()).add(new FuzzyMatch(id, List.of(scope)));
    }

    /** The answer's index: the newest of the tables searched, each watched for a blocking query. */
    private static long index(StateSnapshot s, WatchSet ws, List<String> contexts) {
        long index = 1;
        for (String context : contexts) {
            String table = switch (context) {
                case "jobs" -> NomadTables.JOBS.name();
                case "evals" -> NomadTables.EVALS.name();
                case "allocs" -> NomadTables.ALLOCS.name();
                case "deployments" -> NomadTables.DEPLOYMENTS.name();
                case "nodes" -> NomadTables.NODES.name();
                case "node_pools" -> NodePools.TABLE.name();
                case "namespaces" -> NomadTables.NAMESPACES.name();
                case "variables" -> NomadTables.VARIABLES.name();
                default -> null;
            };
            if (table != null) {
                ws.table(table);
                index = Math.max(index, s.tableIndex(table));
            }
        }
        return index;
    }
}
