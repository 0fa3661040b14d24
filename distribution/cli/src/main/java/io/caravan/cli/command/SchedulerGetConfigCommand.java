package io.caravan.cli.command;

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

/** {@code caravan operator scheduler get-config}: the cluster's scheduler configuration, as Nomad prints it. */
@Command(name = "get-config", description = "Display the current scheduler configuration.")
public final class SchedulerGetConfigCommand extends HttpCommand {
    static final String PATH = "/v1/operator/scheduler/configuration";

    @Option(names = {"-json", "--json"}, description = "Output the configuration in its JSON format.")
    boolean json;

    public SchedulerGetConfigCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error querying scheduler configuration";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode response = api.get(PATH);
        if (json) {
            ctx.out().println(Json.indent(response));
            return 0;
        }
        JsonNode config = response.path("SchedulerConfig");
        JsonNode preemption = config.path("PreemptionConfig");
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("Scheduler Algorithm", Json.text(config.get("SchedulerAlgorithm"))));
        rows.add(List.of("Memory Oversubscription", flag(config, "MemoryOversubscriptionEnabled")));
        rows.add(List.of("Reject Job Registration", flag(config, "RejectJobRegistration")));
        rows.add(List.of("Pause Eval Broker", flag(config, "PauseEvalBroker")));
        rows.add(List.of("Preemption System Scheduler", flag(preemption, "SystemSchedulerEnabled")));
        rows.add(List.of("Preemption Service Scheduler", flag(preemption, "ServiceSchedulerEnabled")));
        rows.add(List.of("Preemption Batch Scheduler", flag(preemption, "BatchSchedulerEnabled")));
        rows.add(List.of("Preemption SysBatch Scheduler", flag(preemption, "SysBatchSchedulerEnabled")));
        if (config.has("NodeLimitForFeasibilityChecks")) {
            rows.add(List.of("Node Limit For Feasibility Checks",
                    Json.text(config.get("NodeLimitForFeasibilityChecks"))));
        }
        rows.add(List.of("Modify Index", Long.toString(config.path("ModifyIndex").asLong())));
        Nomad.keyValues(ctx.out(), rows);
        return 0;
    }

    private static String flag(JsonNode node, String field) {
        return Boolean.toString(node.path(field).asBoolean());
    }
}
