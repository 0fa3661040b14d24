package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan node status [ID | -self]}: Nomad's node list, or one node with its drivers, events, allocated
 * resources and allocations ({@code -verbose}: full IDs, driver details, attributes and meta). Host and allocation
 * utilization (client stats) are not shown.
 */
@Command(name = "status", description = "Display the status of client nodes, or of one node.")
public final class NodeStatusCommand extends HttpCommand {

    @Parameters(arity = "0..1", paramLabel = "ID", description = "A node ID or a unique prefix of one.")
    String id;

    @Option(names = {"-self", "--self"}, description = "Show the node of the agent the CLI talks to.")
    boolean self;

    @Option(names = {"-verbose", "--verbose"}, description = "Full IDs and extra detail.")
    boolean verbose;

    @Option(names = {"-short", "--short"}, description = "Only the node's basic information and its allocations.")
    boolean brief;

    @Option(names = {"-quiet", "--quiet"}, description = "List only node IDs.")
    boolean quiet;

    @Option(names = {"-allocs", "--allocs"}, description = "Add a column with the number of running allocations.")
    boolean allocs;

    @Option(names = {"-stats", "--stats"}, description = "Show the host's resource usage in detail.")
    boolean stats;

    @Option(names = {"-json", "--json"}, description = "Output in JSON format.")
    boolean json;

    public NodeStatusCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return id == null && !self ? "Error querying node status" : "Error querying node info";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (id != null && self) {
            throw new UsageException("This command takes either one or no arguments");
        }
        if (id == null && !self) {
            return list(api);
        }
        JsonNode node = api.get("/v1/node/" + Lookup.node(api, id, self));
        if (json) {
            ctx.out().println(Json.indent(node));
            return 0;
        }
        detail(api, node);
        return 0;
    }

    private int list(ApiClient api) throws ApiException, UsageException {
        if (quiet && (verbose || json)) {
            throw new UsageException("-quiet cannot be used with -verbose or -json");
        }
        JsonNode nodes = api.get("/v1/nodes");
        if (json) {
            ctx.out().println(Json.indent(nodes));
            return 0;
        }
        if (nodes.isEmpty()) {
            ctx.out().println("No nodes registered");
            return 0;
        }
        if (quiet) {
            nodes.forEach(n -> ctx.out().println(Json.text(n.get("ID"))));
            return 0;
        }
        List<String> header = new ArrayList<>(List.of("ID", "Node Pool", "DC", "Name", "Class"));
        if (verbose) {
            header.addAll(List.of("Address", "Version"));
        }
        header.addAll(List.of("Drain", "Eligibility", "Status"));
        if (allocs) {
            header.add("Running Allocs");
        }
        Table table = new Table(header.toArray(String[]::new)).placeholder(Nomad.NONE);
        for (JsonNode n : nodes) {
            List<String> row = new ArrayList<>(List.of(Nomad.id(Json.text(n.get("ID")), verbose),
                    Json.text(n.get("NodePool")), Json.text(n.get("Datacenter")), Json.text(n.get("Name")),
                    Json.text(n.get("NodeClass"))));
            if (verbose) {
                row.addAll(List.of(Json.text(n.get("Address")), Json.text(n.get("Version"))));
            }
            row.addAll(List.of(Boolean.toString(n.path("Drain").asBoolean()),
                    Json.text(n.get("SchedulingEligibility")), Json.text(n.get("Status"))));
            if (allocs) {
                row.add(Integer.toString(running(nodeAllocations(api, Json.text(n.get("ID")))).size()));
            }
            table.row(row);
        }
        table.print(ctx.out());
        return 0;
    }

    private void detail(ApiClient api, JsonNode node) throws ApiException {
        JsonNode nodeAllocs = nodeAllocations(api, Json.text(node.get("ID")));
        List<List<String>> basic = new ArrayList<>();
        basic.add(List.of("ID", Json.text(node.get("ID"))));
        basic.add(List.of("Name", Json.text(node.get("Name"))));
        basic.add(List.of("Node Pool", Json.text(node.get("NodePool"))));
        basic.add(List.of("Class", Json.text(node.get("NodeClass"))));
        basic.add(List.of("DC", Json.text(node.get("Datacenter"))));
        basic.add(List.of("Drain", drain(node)));
        basic.add(List.of("Eligibility", Json.text(node.get("SchedulingEligibility"))));
        basic.add(List.of("Status", Json.text(node.get("Status"))));
        basic.add(List.of("CSI Controllers", names(node.get("CSIControllerPlugins"))));
        basic.add(List.of("CSI Drivers", names(node.get("CSINodePlugins"))));
        if (brief || !verbose) {
            basic.add(List.of("Host Volumes", names(node.get("HostVolumes"))));
            basic.add(List.of("Host Networks", names(node.get("HostNetworks"))));
            basic.add(List.of("CSI Volumes", ""));
            basic.add(List.of(brief ? "Drivers" : "Driver Status", drivers(node, brief)));
        }
        Nomad.keyValues(ctx.out(), basic);
        if (!brief) {
            if (verbose) {
                hostVolumes(node);
                driverTable(node);
            }
            events(node);
            section("Allocated Resources");
            allocatedResources(node, running(nodeAllocs)).print(ctx.out());
            if (stats) {
                hostStats(api, node);
            }
        }
        section("Allocations");
        AllocTable.lines(nodeAllocs, verbose, false, ctx.zone()).forEach(ctx.out()::println);
        if (verbose) {
            section("Attributes");
            keyValues(node.path("Attributes"));
            section("Meta");
            keyValues(node.path("Meta"));
        }
    }

    /** Nomad's formatDrain: {@code false}, or {@code true; <deadline>}, {@code ; ignoring system jobs}. */
    private String drain(JsonNode node) {
        JsonNode strategy = node.get("DrainStrategy");
        if (!Json.present(strategy)) {
            return Boolean.toString(node.path("Drain").asBoolean());
        }
        StringBuilder out = new StringBuilder("true");
        String forceDeadline = Nomad.time(strategy.get("ForceDeadline"), ctx.zone());
        if (strategy.path("Deadline").asLong() < 0) {
            out.append("; force drain");
        } else if (forceDeadline.isEmpty()) {
            out.append("; no deadline");
        } else {
            out.append("; ").append(forceDeadline).append(" deadline");
        }
        if (strategy.path("IgnoreSystemJobs").asBoolean()) {
            out.append("; ignoring system jobs");
        }
        return out.toString();
    }

    /** Detected drivers, sorted; unhealthy ones marked (the full list with {@code -short}). */
    private static String drivers(JsonNode node, boolean namesOnly) {
        List<String> names = new ArrayList<>();
        JsonNode drivers = node.path("Drivers");
        for (String name : Json.sortedFieldNames(drivers)) {
            JsonNode info = drivers.get(name);
            if (!info.path("Detected").asBoolean()) {
                continue;
            }
            names.add(namesOnly || info.path("Healthy").asBoolean() ? name : name + " (unhealthy)");
        }
        return String.join(",", names);
    }

    private void hostVolumes(JsonNode node) {
        JsonNode volumes = node.path("HostVolumes");
        if (volumes.isEmpty()) {
            return;
        }
        section("Host Volumes");
        Table table = new Table("Name", "ReadOnly", "Source").placeholder(Nomad.NONE);
        for (String name : Json.sortedFieldNames(volumes)) {
            JsonNode v = volumes.get(name);
            table.row(name, Boolean.toString(v.path("ReadOnly").asBoolean()), Json.text(v.get("Path")));
        }
        table.print(ctx.out());
    }

    private void driverTable(JsonNode node) {
        section("Drivers");
        Table table = new Table("Driver", "Detected", "Healthy", "Message", "Time").placeholder(Nomad.NONE);
        JsonNode drivers = node.path("Drivers");
        for (String name : Json.sortedFieldNames(drivers)) {
            JsonNode d = drivers.get(name);
            table.row(name, Boolean.toString(d.path("Detected").asBoolean()),
                    Boolean.toString(d.path("Healthy").asBoolean()), Json.text(d.get("HealthDescription")),
                    Nomad.time(d.get("UpdateTime"), ctx.zone()));
        }
        table.print(ctx.out());
    }

    /** The node's events, newest first ({@code -verbose} adds their details). */
    private void events(JsonNode node) {
        section("Node Events");
        Table table = verbose ? new Table("Time", "Subsystem", "Message", "Details")
                : new Table("Time", "Subsystem", "Message");
        table.placeholder(Nomad.NONE);
        List<JsonNode> events = new ArrayList<>();
        node.path("Events").forEach(events::add);
        for (int i = events.size() - 1; i >= 0; i--) {
            JsonNode e = events.get(i);
            JsonNode details = e.path("Details");
            String driver = Json.text(details.get("driver"));
            List<String> row = new ArrayList<>(List.of(Nomad.time(e.get("Timestamp"), ctx.zone()),
                    driver.isEmpty() ? Json.text(e.get("Subsystem")) : "Driver: " + driver,
                    Json.text(e.get("Message"))));
            if (verbose) {
                List<String> pairs = new ArrayList<>();
                Json.sortedFieldNames(details).forEach(k -> pairs.add(k + ": " + Json.text(details.get(k))));
                row.add(String.join(", ", pairs));
            }
            table.row(row);
        }
        table.print(ctx.out());
    }

    /** What the running allocations reserve against the node's capacity (less its reserved resources). */
    private static Table allocatedResources(JsonNode node, List<JsonNode> running) {
        long cpu = 0;
        long memory = 0;
        long disk = 0;
        for (JsonNode alloc : running) {
            JsonNode resources = alloc.path("AllocatedResources");
            for (JsonNode task : resources.path("Tasks")) {
                cpu += task.path("Cpu").path("CpuShares").asLong();
                memory += task.path("Memory").path("MemoryMB").asLong();
            }
            disk += resources.path("Shared").path("DiskMB").asLong();
        }
        JsonNode total = node.path("NodeResources");
        JsonNode reserved = node.path("ReservedResources");
        long totalCpu = total.path("Cpu").path("CpuShares").asLong() - reserved.path("Cpu").path("CpuShares").asLong();
        long totalMemory = total.path("Memory").path("MemoryMB").asLong()
                - reserved.path("Memory").path("MemoryMB").asLong();
        long totalDisk = total.path("Disk").path("DiskMB").asLong() - reserved.path("Disk").path("DiskMB").asLong();
        long maxAllocs = node.path("NodeMaxAllocs").asLong();
        String count = running.size() + (maxAllocs > 0 ? "/" + maxAllocs : "");
        return new Table("CPU", "Memory", "Disk", "Alloc Count").placeholder(Nomad.NONE)
                .row(cpu + "/" + totalCpu + " MHz", Nomad.mebibytes(memory) + "/" + Nomad.mebibytes(totalMemory),
                        Nomad.mebibytes(disk) + "/" + Nomad.mebibytes(totalDisk), count);
    }

    /**
     * {@code -stats}: the host's usage from {@code /v1/client/stats} (through a server if need be), as Nomad's
     * "Host Resource Utilization" and its detailed CPU, memory and disk stats.
     */
    private void hostStats(ApiClient api, JsonNode node) throws ApiException {
        JsonNode host = api.get("/v1/client/stats", Map.of("node_id", Json.text(node.get("ID"))));
        JsonNode memory = host.path("Memory");
        JsonNode disks = host.path("DiskStats");
        long totalCpu = node.path("NodeResources").path("Cpu").path("CpuShares").asLong();
        section("Host Resource Utilization");
        JsonNode disk = disks.isEmpty() ? null : disks.get(0);
        new Table("CPU", "Memory", "Disk").row(Math.round(host.path("CPUTicksConsumed").asDouble()) + "/" + totalCpu
                + " MHz", Nomad.bytes(memory.path("Used").asDouble()) + "/" + Nomad.bytes(memory.path("Total")
                .asDouble()), disk == null ? "" : Nomad.bytes(disk.path("Used").asDouble()) + "/"
                + Nomad.bytes(disk.path("Size").asDouble())).print(ctx.out());
        section("CPU Stats");
        boolean first = true;
        for (JsonNode cpu : host.path("CPU")) {
            if (!first) {
                ctx.out().println();
            }
            first = false;
            Nomad.keyValues(ctx.out(), List.of(List.of("CPU", Json.text(cpu.get("CPU"))),
                    List.of("User", Nomad.percent(cpu.path("User").asDouble())),
                    List.of("System", Nomad.percent(cpu.path("System").asDouble())),
                    List.of("Idle", Nomad.percent(cpu.path("Idle").asDouble()))));
        }
        section("Memory Stats");
        Nomad.keyValues(ctx.out(), List.of(List.of("Total", Nomad.bytes(memory.path("Total").asDouble())),
                List.of("Available", Nomad.bytes(memory.path("Available").asDouble())),
                List.of("Used", Nomad.bytes(memory.path("Used").asDouble())),
                List.of("Free", Nomad.bytes(memory.path("Free").asDouble()))));
        section("Disk Stats");
        first = true;
        for (JsonNode d : disks) {
            if (!first) {
                ctx.out().println();
            }
            first = false;
            Nomad.keyValues(ctx.out(), List.of(List.of("Device", Json.text(d.get("Device"))),
                    List.of("MountPoint", Json.text(d.get("Mountpoint"))),
                    List.of("Size", Nomad.bytes(d.path("Size").asDouble())),
                    List.of("Used", Nomad.bytes(d.path("Used").asDouble())),
                    List.of("Available", Nomad.bytes(d.path("Available").asDouble())),
                    List.of("Used Percent", Nomad.percent(d.path("UsedPercent").asDouble())),
                    List.of("Inodes Percent", Nomad.percent(d.path("InodesUsedPercent").asDouble()))));
        }
    }

    private void keyValues(JsonNode map) {
        List<List<String>> rows = new ArrayList<>();
        for (String key : Json.sortedFieldNames(map)) {
            if (!key.isEmpty()) {
                rows.add(List.of(key, Json.text(map.get(key))));
            }
        }
        Nomad.keyValues(ctx.out(), rows);
    }

    /** A map's keys, sorted and comma-separated (plugins, volumes, networks). */
    private static String names(JsonNode map) {
        return String.join(",", Json.sortedFieldNames(map));
    }

    private void section(String title) {
        ctx.out().println();
        ctx.out().println(title);
    }

    private static JsonNode nodeAllocations(ApiClient api, String nodeId) throws ApiException {
        return api.get("/v1/node/" + Json.pathSegment(nodeId) + "/allocations");
    }

    private static List<JsonNode> running(JsonNode allocs) {
        List<JsonNode> running = new ArrayList<>();
        allocs.forEach(a -> {
            if ("running".equals(Json.text(a.get("ClientStatus")))) {
                running.add(a);
            }
        });
        return running;
    }
}
