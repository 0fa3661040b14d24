package io.caravan.cli.command;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan alloc checks ALLOC}: the latest result of each of the allocation's service checks. */
@Command(name = "checks", description = "Outputs the latest health check status information for services in the "
        + "allocation.")
public final class AllocChecksCommand extends HttpCommand {

    @Parameters(index = "0", paramLabel = "ALLOC", description = "An allocation ID or a unique prefix of one.")
    String alloc;

    @Option(names = {"-json", "--json"}, description = "Output the check results in JSON format.")
    boolean json;

    public AllocChecksCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error retrieving check results";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        AllocTask target = AllocTask.resolve(api, alloc, null, true);
        JsonNode results = api.get("/v1/client/allocation/" + Json.pathSegment(target.allocId()) + "/checks");
        if (json) {
            ctx.out().println(Json.indent(results));
            return 0;
        }
        List<JsonNode> all = new ArrayList<>();
        results.forEach(all::add);
        all.sort((a, b) -> (a.path("Service").asText() + a.path("Check").asText())
                .compareTo(b.path("Service").asText() + b.path("Check").asText()));
        ctx.out().println("Status of " + all.size() + " Nomad Service Checks");
        for (JsonNode r : all) {
            ctx.out().println();
            List<List<String>> rows = new ArrayList<>();
            rows.add(List.of("ID", r.path("ID").asText()));
            rows.add(List.of("Name", r.path("Check").asText()));
            rows.add(List.of("Group", r.path("Group").asText()));
            if (!r.path("Task").asText().isEmpty()) {
                rows.add(List.of("Task", r.path("Task").asText()));
            }
            rows.add(List.of("Service", r.path("Service").asText()));
            rows.add(List.of("Status", r.path("Status").asText()));
            if (r.path("StatusCode").asInt() != 0) {
                rows.add(List.of("StatusCode", Integer.toString(r.path("StatusCode").asInt())));
            }
            rows.add(List.of("Mode", r.path("Mode").asText()));
            long ts = r.path("Timestamp").asLong();
            rows.add(List.of("Timestamp", ts == 0 ? "" : Nomad.time(Instant.ofEpochSecond(ts), ctx.zone())));
            rows.add(List.of("Output", r.path("Output").asText()));
            Nomad.keyValues(ctx.out(), rows);
        }
        return 0;
    }
}
