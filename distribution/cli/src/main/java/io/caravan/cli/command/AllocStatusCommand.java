package io.caravan.cli.command;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.AllocMetrics;
import io.caravan.cli.format.GoDuration;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.format.Table;
import io.caravan.cli.format.TaskEvents;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan alloc status ID}: one allocation in Nomad's layout: its fields, then per task its state,
 * allocated resources, task summary and recent events (newest first); {@code -verbose} adds full IDs, absolute
 * times and the placement metrics; {@code -stats} adds the running tasks' live resource usage (the client's
 * {@code /stats}): used/allocated CPU and memory, and the measured memory and CPU figures.
 */
@Command(name = "status", description = "Display the status of an allocation.")
public final class AllocStatusCommand extends HttpCommand {

    @Parameters(paramLabel = "ID", description = "An allocation ID or a unique prefix of one.")
    String id;

    @Option(names = {"-json", "--json"}, description = "Output in JSON format.")
    boolean json;

    @Option(names = {"-verbose", "--verbose"}, description = "Full IDs, absolute times and placement metrics.")
    boolean verbose;

    @Option(names = {"-short", "--short"}, description = "Only basic information and the tasks' states.")
    boolean brief;

    @Option(names = {"-stats", "--stats"}, description = "Display detailed resource usage statistics.")
    boolean stats;

    /** The allocation's {@code AllocResourceUsage} with {@code -stats} for a running allocation, else null. */
    private JsonNode usage;

    public AllocStatusCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error querying allocation";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode a = api.get("/v1/allocation/" + Lookup.id(api, "/v1/allocations", "allocation", id));
        if (json) {
            ctx.out().println(Json.indent(a));
            return 0;
        }
        Instant now = Instant.now();
        String created = verbose ? Nomad.date(a.path("CreateTime").asLong(), ctx.zone())
                : Nomad.ago(a.path("CreateTime").asLong(), now);
        String modified = verbose ? Nomad.date(a.path("ModifyTime").asLong(), ctx.zone())
                : Nomad.ago(a.path("ModifyTime").asLong(), now);
        if (brief) {
            Nomad.keyValues(ctx.out(), "ID", Json.text(a.get("ID")), "Name", Json.text(a.get("Name")),
                    "Created", created, "Modified", modified);
            shortTaskStates(a);
            return 0;
        }
        List<List<String>> basic = new ArrayList<>();
        add(basic, "ID", Json.text(a.get("ID")));
        add(basic, "Eval ID", id(a, "EvalID"));
        add(basic, "Name", Json.text(a.get("Name")));
        add(basic, "Node ID", id(a, "NodeID"));
        add(basic, "Node Name", Json.text(a.get("NodeName")));
        add(basic, "Job ID", Json.text(a.get("JobID")));
        add(basic, "Job Version", Long.toString(a.path("Job").path("Version").asLong()));
        add(basic, "Client Status", Json.text(a.get("ClientStatus")));
        add(basic, "Client Description", Json.text(a.get("ClientDescription")));
        add(basic, "Desired Status", Json.text(a.get("DesiredStatus")));
        add(basic, "Desired Description", Json.text(a.get("DesiredDescription")));
        add(basic, "Created", created);
        add(basic, "Modified", modified);
        if (!Json.text(a.get("DeploymentID")).isEmpty()) {
            add(basic, "Deployment ID", id(a, "DeploymentID"));
            JsonNode healthy = a.path("DeploymentStatus").get("Healthy");
            add(basic, "Deployment Health",
                    !Json.present(healthy) ? "unset" : healthy.asBoolean() ? "healthy" : "unhealthy");
            if (a.path("DeploymentStatus").path("Canary").asBoolean()) {
                add(basic, "Canary", "true");
            }
        }
        if (!Json.text(a.get("NextAllocation")).isEmpty()) {
            add(basic, "Replacement Alloc ID", id(a, "NextAllocation"));
        }
        JsonNode metrics = a.path("Metrics");
        if (verbose) {
            add(basic, "Evaluated Nodes", Long.toString(metrics.path("NodesEvaluated").asLong()));
            add(basic, "Filtered Nodes", Long.toString(metrics.path("NodesFiltered").asLong()));
            add(basic, "Exhausted Nodes", Long.toString(metrics.path("NodesExhausted").asLong()));
            add(basic, "Allocation Time", GoDuration.format(Duration.ofNanos(metrics.path("AllocationTime").asLong())));
            add(basic, "Failures", Long.toString(metrics.path("CoalescedFailures").asLong()));
        }
        Nomad.keyValues(ctx.out(), basic);
        addresses(a);
        if ("running".equals(Json.text(a.get("ClientStatus"))) && hasChecks(a)) {
            checks(api, a);
        }
        if (stats && "running".equals(Json.text(a.get("ClientStatus")))) {
            usage = api.get("/v1/client/allocation/" + Json.pathSegment(Json.text(a.get("ID"))) + "/stats");
        }
        for (String task : tasks(a)) {
            JsonNode state = a.path("TaskStates").path(task);
            ctx.out().println();
            ctx.out().println("Task " + Nomad.quote(task) + lifecycleSuffix(a, task) + " is "
                    + Nomad.quote(Json.text(state.get("State"))));
            resources(a, task);
            measured(task);
            ctx.out().println();
            taskEvents(state);
        }
        if (verbose) {
            ctx.out().println();
            ctx.out().println("Placement Metrics");
            AllocMetrics.lines(metrics, "  ").forEach(ctx.out()::println);
        }
        return 0;
    }

    /**
     * Nomad's "Allocation Addresses": the group's ports as allocated ({@code *label}, whether dynamic, host address,
     * and {@code -> to} when mapped); the network mode in the title when it is not host.
     */
    private void addresses(JsonNode a) {
        JsonNode shared = a.path("AllocatedResources").path("Shared");
        JsonNode ports = shared.path("Ports");
        if (!ports.isArray() || ports.isEmpty()) {
            return;
        }
        JsonNode network = shared.path("Networks").path(0);
        Set<String> reserved = new HashSet<>();
        network.path("ReservedPorts").forEach(p -> reserved.add(p.path("Label").asText()));
        String mode = Json.text(network.get("Mode"));
        ctx.out().println();
        ctx.out().println("Allocation Addresses" + (mode.isEmpty() || "host".equals(mode) ? ""
                : " (mode = " + Nomad.quote(mode) + ")") + ":");
        Table table = new Table("Label", "Dynamic", "Address");
        for (JsonNode p : ports) {
            String label = p.path("Label").asText();
            String ip = Json.text(p.get("HostIP"));
            if (ip.isEmpty()) {
                ip = Json.text(network.get("IP"));
            }
            int to = p.path("To").asInt();
            table.row("*" + label, reserved.contains(label) ? "no" : "yes",
                    (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + p.path("Value").asInt()
                            + (to > 0 && to != p.path("Value").asInt() ? " -> " + to : ""));
        }
        table.print(ctx.out());
    }

    private static boolean hasChecks(JsonNode a) {
        JsonNode group = null;
        for (JsonNode g : a.path("Job").path("TaskGroups")) {
            if (g.path("Name").asText().equals(Json.text(a.get("TaskGroup")))) {
                group = g;
            }
        }
        if (group == null) {
            return false;
        }
        List<JsonNode> services = new ArrayList<>();
        group.path("Services").forEach(services::add);
        group.path("Tasks").forEach(t -> t.path("Services").forEach(services::add));
        return services.stream().anyMatch(s -> s.path("Checks").size() > 0);
    }

    /** Nomad's "Nomad Service Checks" table: the latest state of each check, from the allocation's client. */
    private void checks(ApiClient api, JsonNode a) {
        JsonNode results;
        try {
            results = api.get("/v1/client/allocation/" + Json.pathSegment(Json.text(a.get("ID"))) + "/checks");
        } catch (ApiException e) {
            return; // the client is unreachable: the rest of the status still helps
        }
        if (results.isEmpty()) {
            return;
        }
        ctx.out().println();
        ctx.out().println("Nomad Service Checks:");
        Table table = new Table("Service", "Task", "Name", "Mode", "Status");
        List<JsonNode> all = new ArrayList<>();
        results.forEach(all::add);
        all.sort(Comparator.comparing((JsonNode r) -> r.path("Service").asText())
                .thenComparing(r -> r.path("Check").asText()));
        for (JsonNode r : all) {
            String task = r.path("Task").asText();
            table.row(r.path("Service").asText(), task.isEmpty() ? "(group)" : task, r.path("Check").asText(),
                    r.path("Mode").asText(), r.path("Status").asText());
        }
        table.print(ctx.out());
    }

    /** {@code -short}: one line per task, Nomad's "Tasks" table. */
    private void shortTaskStates(JsonNode a) {
        ctx.out().println();
        ctx.out().println("Tasks");
        Table table = new Table("Name", "State", "Last Event", "Time", "Lifecycle").placeholder(Nomad.NONE);
        for (String task : tasks(a)) {
            JsonNode state = a.path("TaskStates").path(task);
            JsonNode events = state.path("Events");
            JsonNode last = events.isEmpty() ? null : events.get(events.size() - 1);
            table.row(task, Json.text(state.get("State")), last == null ? "" : Json.text(last.get("Type")),
                    last == null ? "" : Nomad.date(last.path("Time").asLong(), ctx.zone()), lifecycle(a, task));
        }
        table.print(ctx.out());
    }

    /** Allocated CPU, memory, disk and addresses of one task (Nomad shows live usage here when it has it). */
    private void resources(JsonNode a, String task) {
        JsonNode resources = a.path("AllocatedResources").path("Tasks").path(task);
        if (resources.isMissingNode()) {
            return;
        }
        ctx.out().println("Task Resources:");
        List<String> addresses = new ArrayList<>();
        for (JsonNode network : resources.path("Networks")) {
            for (String kind : new String[] {"DynamicPorts", "ReservedPorts"}) {
                for (JsonNode port : network.path(kind)) {
                    addresses.add(Json.text(port.get("Label")) + ": " + Json.text(network.get("IP")) + ":"
                            + Json.text(port.get("Value")));
                }
            }
        }
        int cores = resources.path("Cpu").path("ReservedCores").size();
        long memory = resources.path("Memory").path("MemoryMB").asLong();
        long memoryMax = resources.path("Memory").path("MemoryMaxMB").asLong();
        Table table = new Table(cores > 0 ? "CPU (" + cores + " cores)" : "CPU", "Memory", "Disk", "Addresses");
        JsonNode used = taskUsage(task);
        String cpuUsed = used == null ? "" : (long) Math.floor(used.path("CpuStats").path("TotalTicks").asDouble()) + "/";
        String memoryUsed = used == null ? "" : Nomad.bytes(used.path("MemoryStats").path("RSS").asDouble()) + "/";
        table.row(cpuUsed + resources.path("Cpu").path("CpuShares").asLong() + " MHz",
                memoryUsed + Nomad.mebibytes(memory),
                Nomad.mebibytes(a.path("AllocatedResources").path("Shared").path("DiskMB").asLong()),
                addresses.isEmpty() ? "" : addresses.get(0));
        String max = memoryMax != 0 && memoryMax != memory ? "Max: " + Nomad.mebibytes(memoryMax) : "";
        if (!max.isEmpty() || addresses.size() > 1) {
            table.row("", max, "", addresses.size() > 1 ? addresses.get(1) : "");
        }
        for (int i = 2; i < addresses.size(); i++) {
            table.row("", "", "", addresses.get(i));
        }
        table.print(ctx.out());
    }

    /** The task's {@code ResourceUsage} from {@code -stats}, or null. */
    private JsonNode taskUsage(String task) {
        JsonNode found = usage == null ? null : usage.path("Tasks").path(task).get("ResourceUsage");
        return found == null || found.isNull() ? null : found;
    }

    /** {@code -stats}: the figures the client measured, named as Nomad names them, in its order (sorted). */
    private void measured(String task) {
        JsonNode used = taskUsage(task);
        if (used == null) {
            return;
        }
        JsonNode memory = used.path("MemoryStats");
        List<String> names = measuredNames(memory);
        if (!names.isEmpty()) {
            Table table = new Table(names.toArray(String[]::new));
            table.row(names.stream().map(name -> switch (name) {
                case "RSS" -> Nomad.bytes(memory.path("RSS").asDouble());
                case "Cache" -> Nomad.bytes(memory.path("Cache").asDouble());
                case "Swap" -> Nomad.bytes(memory.path("Swap").asDouble());
                case "Usage" -> Nomad.bytes(memory.path("Usage").asDouble());
                case "Max Usage" -> Nomad.bytes(memory.path("MaxUsage").asDouble());
                case "Kernel Usage" -> Nomad.bytes(memory.path("KernelUsage").asDouble());
                case "Kernel Max Usage" -> Nomad.bytes(memory.path("KernelMaxUsage").asDouble());
                default -> "";
            }).toList());
            ctx.out().println();
            ctx.out().println("Memory Stats");
            table.print(ctx.out());
        }
        JsonNode cpu = used.path("CpuStats");
        names = measuredNames(cpu);
        if (!names.isEmpty()) {
            Table table = new Table(names.toArray(String[]::new));
            table.row(names.stream().map(name -> switch (name) {
                case "Percent" -> Nomad.percent(cpu.path("Percent").asDouble());
                case "User Mode" -> Nomad.percent(cpu.path("UserMode").asDouble());
                case "System Mode" -> Nomad.percent(cpu.path("SystemMode").asDouble());
                case "Throttled Periods" -> Long.toString(cpu.path("ThrottledPeriods").asLong());
                case "Throttled Time" -> Long.toString(cpu.path("ThrottledTime").asLong());
                default -> "";
            }).toList());
            ctx.out().println();
            ctx.out().println("CPU Stats");
            table.print(ctx.out());
        }
    }

    /** {@code Measured}, sorted. */
    private static List<String> measuredNames(JsonNode stats) {
        List<String> names = new ArrayList<>();
        stats.path("Measured").forEach(n -> names.add(n.asText()));
        names.sort(null);
        return names;
    }

    private void taskEvents(JsonNode state) {
        ctx.out().println("Task Events:");
        Nomad.keyValues(ctx.out(),
                "Started At", taskTime(state.get("StartedAt")),
                "Finished At", taskTime(state.get("FinishedAt")),
                "Total Restarts", Long.toString(state.path("Restarts").asLong()),
                "Last Restart", taskTime(state.get("LastRestart")));
        ctx.out().println();
        ctx.out().println("Recent Events:");
        Table table = new Table("Time", "Type", "Description").placeholder(Nomad.NONE);
        List<JsonNode> events = new ArrayList<>();
        state.path("Events").forEach(events::add);
        for (int i = events.size() - 1; i >= 0; i--) {
            JsonNode e = events.get(i);
            table.row(Nomad.date(e.path("Time").asLong(), ctx.zone()), Json.text(e.get("Type")),
                    TaskEvents.describe(e));
        }
        table.print(ctx.out());
    }

    private String taskTime(JsonNode goTime) {
        String text = Nomad.time(goTime, ctx.zone());
        return text.isEmpty() ? "N/A" : text;
    }

    /** Task names with a state: sorted by name, then prestart (non-sidecar) before sidecars before the rest. */
    private static List<String> tasks(JsonNode a) {
        Map<String, JsonNode> lifecycles = lifecycles(a);
        List<String> names = Json.sortedFieldNames(a.path("TaskStates"));
        names.sort(Comparator.comparingInt(name -> {
            JsonNode lc = lifecycles.get(name);
            if (!Json.present(lc)) {
                return 2;
            }
            return lc.path("Sidecar").asBoolean() ? 1 : 0;
        }));
        return names;
    }

    private static Map<String, JsonNode> lifecycles(JsonNode a) {
        Map<String, JsonNode> result = new HashMap<>();
        for (JsonNode group : a.path("Job").path("TaskGroups")) {
            if (Json.text(group.get("Name")).equals(Json.text(a.get("TaskGroup")))) {
                for (JsonNode task : group.path("Tasks")) {
                    JsonNode lc = task.get("Lifecycle");
                    if (Json.present(lc) && !Json.text(lc.get("Hook")).isEmpty()) {
                        result.put(Json.text(task.get("Name")), lc);
                    }
                }
            }
        }
        return result;
    }

    /** Nomad's lifecycleDisplayName: {@code main}, {@code prestart}, {@code poststart sidecar}, ... */
    private static String lifecycle(JsonNode a, String task) {
        JsonNode lc = lifecycles(a).get(task);
        if (lc == null) {
            return "main";
        }
        return Json.text(lc.get("Hook")) + (lc.path("Sidecar").asBoolean() ? " sidecar" : "");
    }

    private static String lifecycleSuffix(JsonNode a, String task) {
        return lifecycles(a).containsKey(task) ? " (" + lifecycle(a, task) + ")" : "";
    }

    private String id(JsonNode a, String field) {
        return Nomad.id(Json.text(a.get(field)), verbose);
    }

    private static void add(List<List<String>> rows, String key, String value) {
        rows.add(List.of(key, value));
    }
}
