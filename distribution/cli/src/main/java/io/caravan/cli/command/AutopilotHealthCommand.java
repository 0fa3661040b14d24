package io.caravan.cli.command;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code caravan operator autopilot health [-json]}: the servers' health as the leader sees it. The agent answers 429
 * when the cluster is not healthy, with the same report; this command shows it either way and exits 0, as Nomad's.
 */
@Command(name = "health", description = "Display the health of the servers.")
public final class AutopilotHealthCommand extends HttpCommand {
    @Option(names = {"-json", "--json"}, description = "Output the health report as JSON.")
    boolean json;

    public AutopilotHealthCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error querying Autopilot health";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode health = api.call("GET", "/v1/operator/autopilot/health", Map.of(), null, 429).body();
        if (json) {
            ctx.out().println(Json.indent(health));
            return 0;
        }
        ctx.out().println("Healthy: " + health.path("Healthy").asBoolean());
        ctx.out().println("FailureTolerance: " + health.path("FailureTolerance").asInt());
        ctx.out().println();
        Table table = new Table("ID", "Name", "Address", "SerfStatus", "Version", "Leader", "Voter", "Healthy",
                "LastContact", "LastTerm", "LastIndex", "StableSince");
        for (JsonNode s : health.path("Servers")) {
            table.row(Json.text(s.get("ID")), Json.text(s.get("Name")), Json.text(s.get("Address")),
                    Json.text(s.get("SerfStatus")), Json.text(s.get("Version")),
                    String.valueOf(s.path("Leader").asBoolean()), String.valueOf(s.path("Voter").asBoolean()),
                    String.valueOf(s.path("Healthy").asBoolean()), Json.text(s.get("LastContact")),
                    String.valueOf(s.path("LastTerm").asLong()), String.valueOf(s.path("LastIndex").asLong()),
                    Json.text(s.get("StableSince")));
        }
        table.print(ctx.out());
        return 0;
    }
}
