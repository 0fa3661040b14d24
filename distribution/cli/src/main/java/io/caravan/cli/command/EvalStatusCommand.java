package io.caravan.cli.command;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.AllocMetrics;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan eval status ID}: one evaluation in Nomad's layout, with the allocations it placed and why
 * placements failed; {@code -monitor} follows it instead ({@link EvalMonitor}).
 */
@Command(name = "status", description = "Display the status of an evaluation.")
public final class EvalStatusCommand extends HttpCommand {

    @Parameters(paramLabel = "ID", description = "An evaluation ID or a unique prefix of one.")
    String id;

    @Option(names = {"-json", "--json"}, description = "Output in JSON format.")
    boolean json;

    @Option(names = {"-monitor", "--monitor"}, description = "Follow the evaluation until it completes.")
    boolean monitor;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs and absolute times.")
    boolean verbose;

    public EvalStatusCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error querying evaluation";
    }

    /** Nomad's "Placement Failures" value: {@code N/A - In Progress} while blocked, else whether any failed. */
    static String placementFailures(JsonNode eval) {
        if ("blocked".equals(Json.text(eval.get("Status")))) {
            return "N/A - In Progress";
        }
        return Boolean.toString(hasFailures(eval));
    }

    static boolean hasFailures(JsonNode eval) {
        JsonNode failed = eval.path("FailedTGAllocs");
        return failed.isObject() && !failed.isEmpty();
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        String evalId = Lookup.id(api, "/v1/evaluations", "evaluation", id);
        if (monitor && !json) {
            return new EvalMonitor(ctx, api, verbose).monitor(evalId);
        }
        JsonNode e = api.get("/v1/evaluation/" + Json.pathSegment(evalId));
        if (json) {
            ctx.out().println(Json.indent(e));
            return 0;
        }
        JsonNode placed = api.get("/v1/evaluation/" + Json.pathSegment(evalId) + "/allocations");
        Instant now = Instant.now();
        long created = e.path("CreateTime").asLong();
        long modified = e.path("ModifyTime").asLong();
        String description = Json.text(e.get("StatusDescription"));
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("ID", Nomad.id(Json.text(e.get("ID")), verbose)));
        rows.add(List.of("Create Time", verbose ? Nomad.date(created, ctx.zone()) : Nomad.ago(created, now)));
        rows.add(List.of("Modify Time", verbose ? Nomad.date(modified, ctx.zone()) : Nomad.ago(modified, now)));
        rows.add(List.of("Status", Json.text(e.get("Status"))));
        rows.add(List.of("Status Description", description.isEmpty() ? Json.text(e.get("Status")) : description));
        rows.add(List.of("Type", Json.text(e.get("Type"))));
        rows.add(List.of("TriggeredBy", Json.text(e.get("TriggeredBy"))));
        rows.add(List.of("Job ID", Json.text(e.get("JobID"))));
        rows.add(List.of("Namespace", Json.text(e.get("Namespace"))));
        switch (Json.text(e.get("TriggeredBy"))) {
            case "node-update" -> addIfSet(rows, "Node ID", Json.text(e.get("NodeID")));
            case "max-plan-attempts" -> addIfSet(rows, "Previous Eval", Json.text(e.get("PreviousEval")));
            default -> { }
        }
        rows.add(List.of("Priority", Json.text(e.get("Priority"))));
        rows.add(List.of("Placement Failures", placementFailures(e)));
        addIfSet(rows, "Wait Until", Nomad.time(e.get("WaitUntil"), ctx.zone()));
        rows.add(List.of("Previous Eval", Nomad.id(Json.text(e.get("PreviousEval")), verbose)));
        rows.add(List.of("Next Eval", Nomad.id(Json.text(e.get("NextEval")), verbose)));
        rows.add(List.of("Blocked Eval", Nomad.id(Json.text(e.get("BlockedEval")), verbose)));
        Nomad.keyValues(ctx.out(), rows);

        if (placed.isArray() && !placed.isEmpty()) {
            ctx.out().println();
            ctx.out().println("Placed Allocations");
            AllocTable.lines(placed, false, true, ctx.zone()).forEach(ctx.out()::println);
        }
        if (hasFailures(e)) {
            ctx.out().println();
            ctx.out().println("Failed Placements");
            JsonNode failed = e.path("FailedTGAllocs");
            for (String group : Json.sortedFieldNames(failed)) {
                JsonNode metric = failed.get(group);
                ctx.out().println("Task Group " + Nomad.quote(group) + " (" + AllocMetrics.failedToPlace(metric)
                        + "):");
                AllocMetrics.lines(metric, "  ").forEach(ctx.out()::println);
            }
            String blocked = Json.text(e.get("BlockedEval"));
            if (!blocked.isEmpty()) {
                ctx.out().println();
                ctx.out().println("Evaluation " + Nomad.quote(Nomad.id(blocked, verbose))
                        + " waiting for additional capacity to place remainder");
            }
        }
        return 0;
    }

    private static void addIfSet(List<List<String>> rows, String key, String value) {
        if (!value.isEmpty()) {
            rows.add(List.of(key, value));
        }
    }
}
