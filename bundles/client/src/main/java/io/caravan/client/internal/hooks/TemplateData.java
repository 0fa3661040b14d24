package io.caravan.client.internal.hooks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.caravan.api.endpoint.NodeEndpoint.TaskServices;
import io.caravan.api.endpoint.NodeEndpoint.TaskVariable;
import io.caravan.api.endpoint.NodeEndpoint.TaskVariables;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.template.Accessible;
import io.caravan.template.Functions;

/**
 * What one task's templates have read from the servers, and what they want to read: templates name their data as
 * they run ({@code nomadVar "path"}), so a first render learns the wants, the data is fetched, and the render runs
 * again (consul-template's dependency discovery). The watcher then keeps the wanted data current with blocking
 * queries. Thread-safe: renders and query answers meet here.
 */
final class TemplateData {
    /** A variable's items as a template sees them: a map ({@code .password}, {@code range}) with Nomad's methods. */
    static final class VarItems extends TreeMap<String, String> implements Accessible {
        private static final long serialVersionUID = 1L;
        private final transient TaskVariable variable;

        VarItems(TaskVariable variable) {
            super(variable == null ? Map.of() : variable.items());
            this.variable = variable;
        }

        @Override
        public Object access(String name, List<Object> args) {
            return switch (name) {
                case "Items" -> new TreeMap<>(this);
                case "Keys" -> new ArrayList<>(keySet());
                case "Values" -> new ArrayList<>(values());
                case "Metadata" -> variable == null ? Map.of() : metadata(variable);
                case "Tuples" -> entrySet().stream().map(e -> Map.of("K", e.getKey(), "V", e.getValue())).toList();
                default -> NO_SUCH;
            };
        }
    }

    private final TemplateSource source;
    private final Allocation alloc;
    private final String task;
    private final Map<String, Optional<TaskVariable>> vars = new HashMap<>();
    private final Map<String, List<TaskVariable>> lists = new HashMap<>();
    private List<ServiceRegistration> services;
    private final Set<String> serviceNames = new TreeSet<>();
    private boolean allServices;
    private long varIndex;
    private long serviceIndex;
    private boolean newWants;

    TemplateData(TemplateSource source, Allocation alloc, String task) {
        this.source = source;
        this.alloc = alloc;
        this.task = task;
    }

    /**
     * The data functions for one render: what is not known yet is recorded as wanted (and reads as empty), and a
     * variable that does not exist adds its name to {@code missing} (Nomad waits for it before the first render).
     */
    Functions functions(Functions base, Set<String> missing) {
        return base
                .with("nomadVar", args -> {
                    String path = args.expect(1).string(0);
                    Optional<TaskVariable> v = variable(path);
                    if (v == null || v.isEmpty()) {
                        missing.add("nomad.var.block(" + path + "@" + alloc.namespace() + ")");
                    }
                    return new VarItems(v == null ? null : v.orElse(null));
                })
                .with("nomadVarExists", args -> {
                    Optional<TaskVariable> v = variable(args.expect(1).string(0));
                    return v != null && v.isPresent();
                })
                .with("nomadVarList", args -> {
                    String prefix = args.expect(0, 1).size() == 0 ? "" : args.string(0);
                    return list(prefix).stream().map(TemplateData::metadata).toList();
                })
                .with("nomadService", args -> {
                    args.expect(1, 3);
                    if (args.size() == 2) {
                        throw new IllegalArgumentException("nomadService takes a name, or a count, a key and a name");
                    }
                    String query = args.string(args.size() - 1);
                    List<Map<String, Object>> out = service(query);
                    return args.size() == 3 ? subset(out, args.integer(0), args.string(1)) : out;
                })
                .with("nomadServices", args -> {
                    args.expect(0);
                    return serviceList();
                });
    }

    private synchronized Optional<TaskVariable> variable(String path) {
        if (!vars.containsKey(path)) {
            vars.put(path, null);
            newWants = true;
            return null;
        }
        return vars.get(path);
    }

    private synchronized List<TaskVariable> list(String prefix) {
        if (!lists.containsKey(prefix)) {
            lists.put(prefix, null);
            newWants = true;
        }
        List<TaskVariable> l = lists.get(prefix);
        return l == null ? List.of() : l;
    }

    /** {@code name}, or {@code tag.name}: the instances, tagged {@code tag} if given, ordered as Nomad's. */
    private synchronized List<Map<String, Object>> service(String query) {
        int dot = query.lastIndexOf('.');
        String tag = dot < 0 ? null : query.substring(0, dot);
        String name = dot < 0 ? query : query.substring(dot + 1);
        if (serviceNames.add(name) && !allServices) {
            newWants = true;
        }
        if (services == null) {
            return List.of();
        }
        return services.stream().filter(r -> r.serviceName().equals(name) && (tag == null || r.tags().contains(tag)))
                .sorted(Comparator.comparing(ServiceRegistration::id)).map(TemplateData::service).toList();
    }

    private synchronized List<Map<String, Object>> serviceList() {
        if (!allServices) {
            allServices = true;
            newWants = true;
        }
        Map<String, Set<String>> tags = new TreeMap<>();
        if (services != null) {
            services.forEach(r -> tags.computeIfAbsent(r.serviceName(), k -> new TreeSet<>()).addAll(r.tags()));
        }
        List<Map<String, Object>> out = new ArrayList<>();
        tags.forEach((name, t) -> out.add(Map.of("Name", name, "Namespace", alloc.namespace(),
                "Tags", new ArrayList<>(t))));
        return out;
    }

    /** Nomad's {@code nomadService COUNT KEY NAME}: a stable subset of {@code count} instances chosen by key. */
    private static List<Map<String, Object>> subset(List<Map<String, Object>> all, long count, String key) {
        List<Map<String, Object>> sorted = new ArrayList<>(all);
        sorted.sort(Comparator.comparingInt(m -> (key + m.get("ID")).hashCode()));
        return sorted.subList(0, (int) Math.min(count, sorted.size()));
    }

    private static Map<String, Object> service(ServiceRegistration r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ID", r.id());
        m.put("Name", r.serviceName());
        m.put("Namespace", r.namespace());
        m.put("NodeID", r.nodeId());
        m.put("Datacenter", r.datacenter() == null ? "" : r.datacenter());
        m.put("JobID", r.jobId());
        m.put("AllocID", r.allocId());
        m.put("Tags", r.tags());
        m.put("Address", r.address());
        m.put("Port", r.port());
        m.put("CreateIndex", r.createIndex());
        m.put("ModifyIndex", r.modifyIndex());
        return m;
    }

    private static Map<String, Object> metadata(TaskVariable v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("Namespace", v.namespace());
        m.put("Path", v.path());
        m.put("CreateIndex", v.createIndex());
        m.put("ModifyIndex", v.modifyIndex());
        m.put("CreateTime", v.createTime());
        m.put("ModifyTime", v.modifyTime());
        return m;
    }

    /** Whether the last render asked for data not fetched yet (and forgets it). */
    synchronized boolean takeNewWants() {
        boolean was = newWants;
        newWants = false;
        return was;
    }

    synchronized boolean wantsVariables() {
        return !vars.isEmpty() || !lists.isEmpty();
    }

    synchronized boolean wantsServices() {
        return allServices || !serviceNames.isEmpty();
    }

    synchronized long varIndex() {
        return varIndex;
    }

    synchronized long serviceIndex() {
        return serviceIndex;
    }

    /**
     * Fetches the wanted variables once they pass {@code minIndex} (0: at once) or {@code maxWait} elapses; completes
     * with whether anything changed, or with the failure (a policy that denies a path, no servers).
     */
    CompletionStage<Boolean> fetchVariables(long minIndex, Duration maxWait) {
        List<String> paths;
        List<String> prefixes;
        synchronized (this) {
            paths = new ArrayList<>(vars.keySet());
            prefixes = new ArrayList<>(lists.keySet());
        }
        return source.variables(alloc, task, paths, prefixes, minIndex, maxWait)
                .thenApply(answer -> update(paths, answer));
    }

    synchronized boolean update(List<String> paths, TaskVariables answer) {
        boolean changed = false;
        Map<String, TaskVariable> byPath = new HashMap<>();
        answer.variables().forEach(v -> byPath.put(v.path(), v));
        for (String p : paths) {
            Optional<TaskVariable> now = Optional.ofNullable(byPath.get(p));
            if (!now.equals(vars.get(p))) {
                vars.put(p, now);
                changed = true;
            }
        }
        for (Map.Entry<String, List<TaskVariable>> e : answer.listed().entrySet()) {
            if (!e.getValue().equals(lists.get(e.getKey()))) {
                lists.put(e.getKey(), e.getValue());
                changed = true;
            }
        }
        varIndex = Math.max(varIndex, answer.index());
        return changed;
    }

    /** As {@link #fetchVariables}, for the wanted services. */
    CompletionStage<Boolean> fetchServices(long minIndex, Duration maxWait) {
        List<String> names;
        synchronized (this) {
            names = allServices ? List.of() : new ArrayList<>(serviceNames);
        }
        return source.services(alloc, names, minIndex, maxWait).thenApply(this::update);
    }

    /** Fetches everything wanted at once, waiting for the answers up to {@code timeout}. */
    void fetchAll(Duration timeout) throws Exception {
        List<CompletableFuture<Boolean>> calls = new ArrayList<>();
        if (wantsVariables()) {
            calls.add(fetchVariables(0, Duration.ZERO).toCompletableFuture());
        }
        if (wantsServices()) {
            calls.add(fetchServices(0, Duration.ZERO).toCompletableFuture());
        }
        try {
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                    ? c.getCause() : e.getCause();
            throw cause instanceof Exception ex ? ex : e;
        }
    }

    synchronized boolean update(TaskServices answer) {
        List<ServiceRegistration> now = answer.services();
        boolean changed = services == null || !withoutIndexes(services).equals(withoutIndexes(now));
        services = now;
        serviceIndex = Math.max(serviceIndex, answer.index());
        return changed;
    }

    private static Set<ServiceRegistration> withoutIndexes(List<ServiceRegistration> rows) {
        Set<ServiceRegistration> out = new LinkedHashSet<>();
        rows.forEach(r -> out.add(r.withIndexes(0, 0)));
        return out;
    }

    Allocation alloc() {
        return alloc;
    }
}
