package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan agent-info}: the stats sections of {@code /v1/agent/self}. */
@Command(name = "agent-info", description = "Display status information about the local agent.")
public final class AgentInfoCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the agent info in its JSON format.")
    boolean json;

    public AgentInfoCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error querying agent info";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode self = api.get("/v1/agent/self");
        if (json) {
            ctx.out().println(Json.indent(self));
            return 0;
        }
        JsonNode stats = self.path("stats");
        for (String section : Json.sortedFieldNames(stats)) {
            ctx.out().println(section);
            JsonNode values = stats.get(section);
            List<List<String>> rows = new ArrayList<>();
            for (String key : Json.sortedFieldNames(values)) {
                rows.add(List.of(key, Json.text(values.get(key))));
            }
            Table.format(rows, " = ").forEach(line -> ctx.out().println("  " + line));
        }
        return 0;
    }
}
