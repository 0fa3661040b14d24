package io.caravan.cli.command;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.AllocMetrics;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan job status [ID]}: the job list, or one job with its summary and allocations. */
@Command(name = "status", description = "Display the status of jobs, or of one job.")
public final class JobStatusCommand extends HttpCommand {

    @Parameters(arity = "0..1", paramLabel = "ID", description = "A job ID or a unique prefix of one.")
    String id;

    @Option(names = {"-json", "--json"}, description = "Output in JSON format.")
    boolean json;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs, absolute times and evaluations.")
    boolean verbose;

    @Option(names = {"-evals", "--evals"}, description = "Show the job's evaluations.")
    boolean evals;

    private static final int MAX_FAILED_GROUPS = 5;

    public JobStatusCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return id == null ? "Error querying jobs" : "Error querying job";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        if (id == null) {
            return StatusCommand.listJobs(ctx, api, json);
        }
        String jobId = Lookup.id(api, "/v1/jobs", "job", id);
        String path = "/v1/job/" + Json.pathSegment(jobId);
        JsonNode job = api.get(path);
        if (json) {
            ctx.out().println(Json.indent(job));
            return 0;
        }
        Nomad.keyValues(ctx.out(),
                "ID", Json.text(job.get("ID")),
                "Name", Json.text(job.get("Name")),
                "Submit Date", Nomad.date(job.path("SubmitTime").asLong(), ctx.zone()),
                "Type", Json.text(job.get("Type")),
                "Priority", Json.text(job.get("Priority")),
                "Datacenters", Json.join(job.get("Datacenters"), ","),
                "Namespace", Json.text(job.get("Namespace")),
                "Node Pool", Json.text(job.get("NodePool")),
                "Status", Json.text(job.get("Status")) + (job.path("Stop").asBoolean() ? " (stopped)" : ""),
                "Periodic", Boolean.toString(Json.present(job.get("Periodic"))),
                "Parameterized", Boolean.toString(Json.present(job.get("ParameterizedJob"))));

        JsonNode summary = api.get(path + "/summary").path("Summary");
        ctx.out().println();
        ctx.out().println("Summary");
        Table groups = new Table("Task Group", "Queued", "Starting", "Running", "Failed", "Complete", "Lost",
                "Unknown");
        for (String group : Json.sortedFieldNames(summary)) {
            JsonNode g = summary.get(group);
            groups.row(group, n(g, "Queued"), n(g, "Starting"), n(g, "Running"), n(g, "Failed"), n(g, "Complete"),
                    n(g, "Lost"), n(g, "Unknown"));
        }
        groups.print(ctx.out());

        evaluations(api.get(path + "/evaluations"));
        latestDeployment(latestDeploymentOf(api, path));

        JsonNode allocs = api.get(path + "/allocations", Map.of());
        ctx.out().println();
        ctx.out().println("Allocations");
        AllocTable.lines(allocs, verbose, true, ctx.zone()).forEach(ctx.out()::println);
        return 0;
    }

    /**
     * The job's evaluations (with {@code -evals} or {@code -verbose}), and while one is blocked, why the latest
     * failed evaluation could not place everything (at most five groups, as Nomad).
     */
    private void evaluations(JsonNode jobEvals) {
        Table table = new Table("ID", "Priority", "Triggered By", "Status", "Placement Failures")
                .placeholder(Nomad.NONE);
        boolean blocked = false;
        JsonNode latestFailed = null;
        for (JsonNode e : jobEvals) {
            table.row(Nomad.id(Json.text(e.get("ID")), verbose), Json.text(e.get("Priority")),
                    Json.text(e.get("TriggeredBy")), Json.text(e.get("Status")),
                    EvalStatusCommand.placementFailures(e));
            blocked |= "blocked".equals(Json.text(e.get("Status")));
            if (EvalStatusCommand.hasFailures(e) && (latestFailed == null
                    || latestFailed.path("CreateIndex").asLong() < e.path("CreateIndex").asLong())) {
                latestFailed = e;
            }
        }
        if (verbose || evals) {
            ctx.out().println();
            ctx.out().println("Evaluations");
            table.print(ctx.out());
        }
        if (!blocked || latestFailed == null) {
            return;
        }
        ctx.out().println();
        ctx.out().println("Placement Failure");
        JsonNode failed = latestFailed.path("FailedTGAllocs");
        List<String> groups = Json.sortedFieldNames(failed);
        for (int i = 0; i < groups.size() && i < MAX_FAILED_GROUPS; i++) {
            if (i > 0) {
                ctx.out().println();
            }
            ctx.out().println("Task Group " + Nomad.quote(groups.get(i)) + ":");
            AllocMetrics.lines(failed.get(groups.get(i)), "  ").forEach(ctx.out()::println);
        }
        if (groups.size() > MAX_FAILED_GROUPS) {
            ctx.out().println();
            ctx.out().println("Placement failures truncated. To see remainder run:");
            ctx.out().println("caravan eval status " + Json.text(latestFailed.get("ID")));
        }
    }

    /** The job's latest deployment; none from an agent that predates deployments (404 on the route). */
    private static JsonNode latestDeploymentOf(ApiClient api, String jobPath) throws ApiException {
        try {
            return api.get(jobPath + "/deployment");
        } catch (ApiException e) {
            if (e.getMessage().startsWith("Unexpected response code: 404")) {
                return null;
            }
            throw e;
        }
    }

    /** Nomad's "Latest Deployment": ID, status, description and the "Deployed" groups; nothing without one. */
    private void latestDeployment(JsonNode deployment) {
        if (!Json.present(deployment)) {
            return;
        }
        ctx.out().println();
        ctx.out().println("Latest Deployment");
        Deployments.details(deployment, verbose, false, ctx.zone()).forEach(ctx.out()::println);
    }

    private static String n(JsonNode group, String field) {
        return Long.toString(group.path(field).asLong());
    }
}
