package io.caravan.cli.command;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.AllocMetrics;
import io.caravan.cli.format.GoDuration;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;

/**
 * Follows an evaluation to its end as Nomad's CLI does after {@code job run}, {@code job stop} and
 * {@code alloc stop}: what triggered it, the allocations it creates or modifies, its status changes, and why
 * placements failed. Lines start with {@code ==> } (milestones) or four spaces (details), then a timestamp.
 *
 * <p>Reads are blocking queries on the evaluation, paced and bounded by {@link Watch}: Nomad's monitor waits
 * forever, but an evaluation that no scheduler ever picks up should not hang a script.
 *
 * <p>When the last evaluation of the chain belongs to a deployment, the deployment is followed next
 * ({@link DeploymentMonitor}), as Nomad's monitor does.
 *
 * <p>Exit codes: 0 when the evaluation finished and placed everything (and its deployment, if any, succeeded);
 * 2 when it finished with placement failures or with status {@code failed} and had no deployment; 1 when it could
 * not be read, the watch timed out, or the deployment did not succeed.
 */
final class EvalMonitor {
    private static final List<String> TERMINAL = List.of("complete", "failed", "canceled", "cancelled");

    private final Context ctx;
    private final ApiClient api;
    private final boolean fullIds;
    private final Watch watch;
    /** The deployment of the evaluation followed last (Nomad keeps it in the per-evaluation state). */
    private String deployment = "";

    /** A monitor for one watch: its time bound starts now. */
    EvalMonitor(Context ctx, ApiClient api, boolean fullIds) {
        this.ctx = ctx;
        this.api = api;
        this.fullIds = fullIds;
        this.watch = new Watch(ctx);
    }

    /** Watches {@code evalId} (and the evaluations it chains to) until it ends; returns the exit code. */
    int monitor(String evalId) {
        String id = evalId;
        Outcome outcome;
        while (true) {
            outcome = follow(id);
            if (outcome.next == null) {
                break;
            }
            id = outcome.next;
        }
        if (deployment.isEmpty() || outcome.code == 1) {
            return outcome.code;
        }
        info("Monitoring deployment " + Nomad.quote(id(deployment)));
        String status = new DeploymentMonitor(ctx, api, fullIds, DeploymentMonitor.stdoutIsTerminal(), "    ")
                .monitor(deployment);
        // A successful deployment outweighs placement failures, as in Nomad.
        return DeploymentMonitor.SUCCESSFUL.equals(status) ? 0 : 1;
    }

    private record Outcome(int code, String next) {}

    private record AllocState(String group, String node, String desired, String client, String clientDescription,
                              long createIndex) {}

    /** What the monitor last saw of the evaluation; a change between two of these is what gets printed. */
    private record EvalState(String status, String node, String job, String deployment, long createIndex,
                             Map<String, AllocState> allocs) {
        static EvalState initial() {
            return new EvalState("pending", "", "", "", 0, Map.of());
        }
    }

    private Outcome follow(String evalId) {
        EvalState seen = EvalState.initial();
        info("Monitoring evaluation " + Nomad.quote(id(evalId)));
        long index = 0;
        while (true) {
            Instant asked = Instant.now();
            JsonNode eval;
            JsonNode allocs;
            long answeredIndex;
            try {
                ApiClient.Response response = api.query("/v1/evaluation/" + Json.pathSegment(evalId),
                        watch.blocking(index), watch.requestTimeout());
                eval = response.body();
                answeredIndex = response.index();
            } catch (ApiException e) {
                error(e.getMessage().startsWith("Unexpected response code: 404")
                        ? "No evaluation with id " + Nomad.quote(evalId) + " found"
                        : "Error reading evaluation " + Nomad.quote(evalId) + ": " + e.getMessage());
                return new Outcome(1, null);
            }
            try {
                allocs = api.get("/v1/evaluation/" + Json.pathSegment(evalId) + "/allocations");
            } catch (ApiException e) {
                error(stamp("Error reading allocations: " + e.getMessage()));
                return new Outcome(1, null);
            }
            EvalState now = state(eval, allocs);
            report(seen, now);
            seen = now;
            deployment = now.deployment();

            String status = Json.text(eval.get("Status"));
            if (TERMINAL.contains(status)) {
                return finish(eval);
            }
            if (watch.expired()) {
                error(stamp("Timed out after " + GoDuration.format(watch.timeout()) + " waiting for evaluation "
                        + Nomad.quote(id(evalId)) + " (status " + Nomad.quote(status) + "); it carries on, see "
                        + "'caravan eval status " + evalId + "'"));
                return new Outcome(1, null);
            }
            watch.pace(asked, answeredIndex > index);
            index = Math.max(index, answeredIndex);
        }
    }

    /** The end of one evaluation: its result, its failures, and the evaluation it chains to, if any. */
    private Outcome finish(JsonNode eval) {
        String evalId = Json.text(eval.get("ID"));
        String status = Json.text(eval.get("Status"));
        JsonNode failed = eval.path("FailedTGAllocs");
        boolean placementFailures = EvalStatusCommand.hasFailures(eval);
        if (!placementFailures) {
            info("Evaluation " + Nomad.quote(id(evalId)) + " finished with status " + Nomad.quote(status));
        } else {
            info("Evaluation " + Nomad.quote(id(evalId)) + " finished with status " + Nomad.quote(status)
                    + " but failed to place all allocations:");
            for (String group : Json.sortedFieldNames(failed)) {
                JsonNode metric = failed.get(group);
                output(stamp("Task Group " + Nomad.quote(group) + " (" + AllocMetrics.failedToPlace(metric) + "):"));
                AllocMetrics.lines(metric, "  ").forEach(this::output);
            }
            String blockedEval = Json.text(eval.get("BlockedEval"));
            if (!blockedEval.isEmpty()) {
                output(stamp("Evaluation " + Nomad.quote(id(blockedEval))
                        + " waiting for additional capacity to place remainder"));
            }
        }
        int code = placementFailures || status.equals("failed") ? 2 : 0;
        String next = Json.text(eval.get("NextEval"));
        if (next.isEmpty()) {
            return new Outcome(code, null);
        }
        Duration wait = Duration.ofNanos(eval.path("Wait").asLong());
        if (!wait.isZero()) {
            info("Monitoring next evaluation " + Nomad.quote(id(next)) + " in " + GoDuration.format(wait));
            watch.sleep(wait);
        }
        return new Outcome(code, next);
    }

    private static EvalState state(JsonNode eval, JsonNode allocs) {
        Map<String, AllocState> byId = new LinkedHashMap<>();
        for (JsonNode a : allocs) {
            byId.put(Json.text(a.get("ID")), new AllocState(Json.text(a.get("TaskGroup")), Json.text(a.get("NodeID")),
                    Json.text(a.get("DesiredStatus")), Json.text(a.get("ClientStatus")),
                    Json.text(a.get("ClientDescription")), a.path("CreateIndex").asLong()));
        }
        return new EvalState(Json.text(eval.get("Status")), Json.text(eval.get("NodeID")), Json.text(eval.get("JobID")),
                Json.text(eval.get("DeploymentID")), eval.path("CreateIndex").asLong(), byId);
    }

    /** Prints what changed from {@code before} to {@code after}, in Nomad's order and words. */
    private void report(EvalState before, EvalState after) {
        if (before.node().isEmpty() && !after.node().isEmpty()) {
            output(stamp("Evaluation triggered by node " + Nomad.quote(id(after.node()))));
        }
        if (before.job().isEmpty() && !after.job().isEmpty()) {
            output(stamp("Evaluation triggered by job " + Nomad.quote(after.job())));
        }
        if (before.deployment().isEmpty() && !after.deployment().isEmpty()) {
            output(stamp("Evaluation within deployment: " + Nomad.quote(id(after.deployment()))));
        }
        after.allocs().forEach((allocId, alloc) -> {
            AllocState earlier = before.allocs().get(allocId);
            if (earlier == null) {
                String where = ": node " + Nomad.quote(id(alloc.node())) + ", group " + Nomad.quote(alloc.group());
                if (alloc.createIndex() < after.createIndex()) {
                    // Older than the evaluation: an existing allocation it changed (stopped, updated in place).
                    output(stamp("Allocation " + Nomad.quote(id(allocId)) + " modified" + where));
                } else if (alloc.desired().equals("run")) {
                    output(stamp("Allocation " + Nomad.quote(id(allocId)) + " created" + where));
                }
            } else if (!earlier.client().equals(alloc.client())) {
                String why = alloc.clientDescription().isEmpty() ? "" : " (" + alloc.clientDescription() + ")";
                output(stamp("Allocation " + Nomad.quote(id(allocId)) + " status changed: "
                        + Nomad.quote(earlier.client()) + " -> " + Nomad.quote(alloc.client()) + why));
            }
        });
        if (!after.status().equals("pending") && !before.status().equals(after.status())) {
            output(stamp("Evaluation status changed: " + Nomad.quote(before.status()) + " -> "
                    + Nomad.quote(after.status())));
        }
    }

    private String id(String id) {
        return Nomad.id(id, fullIds);
    }

    private String stamp(String message) {
        return watch.stamp(message);
    }

    /** A milestone: {@code ==> <time>: message}. */
    private void info(String message) {
        ctx.out().println("==> " + stamp(message));
    }

    /** A detail line, indented under the milestones. */
    private void output(String line) {
        ctx.out().println("    " + line);
    }

    private void error(String message) {
        ctx.err().println("==> " + message);
    }

}
