package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * {@code caravan service info NAME}: the service's instances, as a table ({@code -verbose}: every field of each), with
 * {@code -choose n|key} to see the instances that key would be given.
 */
@Command(name = "info", description = "Display an individual service's registrations.")
public final class ServiceInfoCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the registrations in JSON format.")
    boolean json;

    @Option(names = {"-verbose", "--verbose"}, description = "Show every field of each registration, full IDs.")
    boolean verbose;

    @Option(names = {"-choose", "--choose"}, paramLabel = "<n>|<key>",
            description = "Only the n instances rendezvous hashing gives this key.")
    String choose;

    @Parameters(arity = "0..*", paramLabel = "NAME")
    List<String> args = List.of();

    public ServiceInfoCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error listing service registrations";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <service_name>");
        }
        String name = args.get(0);
        Map<String, String> query = new LinkedHashMap<>();
        if (choose != null && !choose.isEmpty()) {
            query.put("choose", choose);
        }
        JsonNode regs = api.get("/v1/service/" + name, query);
        if (json) {
            ctx.out().println(Json.indent(regs));
            return 0;
        }
        if (regs.isEmpty()) {
            ctx.err().println("No service registrations with name " + Nomad.quote(name) + " found");
            return 1;
        }
        if (verbose) {
            boolean first = true;
            for (JsonNode r : regs) {
                if (!first) {
                    ctx.out().println();
                }
                first = false;
                Nomad.keyValues(ctx.out(), "ID", r.path("ID").asText(), "Service Name",
                        r.path("ServiceName").asText(), "Namespace", r.path("Namespace").asText(), "Job ID",
                        r.path("JobID").asText(), "Alloc ID", r.path("AllocID").asText(), "Node ID",
                        r.path("NodeID").asText(), "Datacenter", r.path("Datacenter").asText(), "Address",
                        address(r), "Tags", tags(r));
            }
            return 0;
        }
        Table table = new Table("Job ID", "Address", "Tags", "Node ID", "Alloc ID");
        for (JsonNode r : regs) {
            table.row(r.path("JobID").asText(), address(r), tags(r), Nomad.shortId(r.path("NodeID").asText()),
                    Nomad.shortId(r.path("AllocID").asText()));
        }
        table.print(ctx.out());
        return 0;
    }

    private static String address(JsonNode r) {
        String host = r.path("Address").asText();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + r.path("Port").asInt();
    }

    private static String tags(JsonNode r) {
        List<String> tags = new ArrayList<>();
        r.path("Tags").forEach(t -> tags.add(t.asText()));
        return "[" + String.join(",", tags) + "]";
    }
}
