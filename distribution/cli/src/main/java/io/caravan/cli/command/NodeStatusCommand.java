package io.caravan.cli.command;

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

/** {@code caravan node status [ID]}: the node list, or one node. */
@Command(name = "status", description = "Display the status of client nodes, or of one node.")
public final class NodeStatusCommand extends HttpCommand {

    @Parameters(arity = "0..1", paramLabel = "ID", description = "A node ID or a unique prefix of one.")
    String id;

    @Option(names = {"-json", "--json"}, description = "Output in JSON format.")
    boolean json;

    public NodeStatusCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return id == null ? "Error querying node status" : "Error querying node info";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        if (id != null) {
            JsonNode n = api.get("/v1/node/" + Lookup.id(api, "/v1/nodes", "node", id));
            if (json) {
                ctx.out().println(Json.indent(n));
                return 0;
            }
            Nomad.keyValues(ctx.out(),
                    "ID", Nomad.shortId(Json.text(n.get("ID"))),
                    "Name", Json.text(n.get("Name")),
                    "Node Pool", Json.text(n.get("NodePool")),
                    "Class", Json.text(n.get("NodeClass")),
                    "DC", Json.text(n.get("Datacenter")),
                    "Drain", Boolean.toString(n.path("Drain").asBoolean()),
                    "Eligibility", Json.text(n.get("SchedulingEligibility")),
                    "Status", Json.text(n.get("Status")));
            return 0;
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
        Table table = new Table("ID", "Node Pool", "DC", "Name", "Class", "Drain", "Eligibility", "Status");
        for (JsonNode n : nodes) {
            table.row(Nomad.shortId(Json.text(n.get("ID"))), Json.text(n.get("NodePool")),
                    Json.text(n.get("Datacenter")), Json.text(n.get("Name")), Json.text(n.get("NodeClass")),
                    Boolean.toString(n.path("Drain").asBoolean()), Json.text(n.get("SchedulingEligibility")),
                    Json.text(n.get("Status")));
        }
        table.print(ctx.out());
        return 0;
    }
}
