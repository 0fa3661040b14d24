package io.caravan.cli.command;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.cron.CronExpression;
import io.caravan.cli.Context;
import io.caravan.cli.format.AllocMetrics;
import io.caravan.cli.format.GoDuration;
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
        // Nomad's IsPeriodic and IsParameterized: a dispatched child is not itself parameterized.
        boolean periodic = Json.present(job.get("Periodic"));
        boolean parameterized = Json.present(job.get("ParameterizedJob")) && !job.path("Dispatched").asBoolean();
        List<String> basic = new ArrayList<>(List.of(
                "ID", Json.text(job.get("ID")),
                "Name", Json.text(job.get("Name")),
                "Submit Date", Nomad.date(job.path("SubmitTime").asLong(), ctx.zone()),
                "Type", Json.text(job.get("Type")),
                "Priority", Json.text(job.get("Priority")),
                "Datacenters", Json.join(job.get("Datacenters"), ","),
                "Namespace", Json.text(job.get("Namespace")),
                "Node Pool", Json.text(job.get("NodePool")),
                "Status", Json.text(job.get("Status")) + (job.path("Stop").asBoolean() ? " (stopped)" : ""),
                "Periodic", Boolean.toString(periodic),
                "Parameterized", Boolean.toString(parameterized)));
        String token = Json.text(job.get("DispatchIdempotencyToken"));
        if (!token.isEmpty()) {
            basic.addAll(List.of("Idempotency Token", token));
        }
        if (periodic && !parameterized) {
            String next = nextLaunch(job.get("Periodic"));
            if (next != null) {
                basic.addAll(List.of("Next Periodic Launch", next));
            }
        }
        Nomad.keyValues(ctx.out(), basic.toArray(String[]::new));
        if (parameterized) {
            JsonNode p = job.get("ParameterizedJob");
            ctx.out().println();
            ctx.out().println("Parameterized Job");
            Nomad.keyValues(ctx.out(),
                    "Payload", Json.text(p.get("Payload")),
                    "Required Metadata", Json.join(p.get("MetaRequired"), ", "),
                    "Optional Metadata", Json.join(p.get("MetaOptional"), ", "));
        }

        JsonNode jobSummary = api.get(path + "/summary");
        JsonNode summary = jobSummary.path("Summary");
        if (!periodic && !parameterized) {
            ctx.out().println();
            ctx.out().println("Summary");
            Table groups = new Table("Task Group", "Queued", "Starting", "Running", "Failed", "Complete", "Lost",
                    "Unknown");
            for (String group : Json.sortedFieldNames(summary)) {
                JsonNode g = summary.get(group);
                groups.row(group, n(g, "Queued"), n(g, "Starting"), n(g, "Running"), n(g, "Failed"),
                        n(g, "Complete"), n(g, "Lost"), n(g, "Unknown"));
            }
            groups.print(ctx.out());
        }
        JsonNode children = jobSummary.path("Children");
        long sum = children.path("Pending").asLong() + children.path("Running").asLong()
                + children.path("Dead").asLong();
        if (periodic || parameterized || sum > 0) {
            ctx.out().println();
            ctx.out().println(parameterized ? "Parameterized Job Summary" : "Children Job Summary");
            new Table("Pending", "Running", "Dead").row(n(children, "Pending"), n(children, "Running"),
                    n(children, "Dead")).print(ctx.out());
        }
        if (periodic && !parameterized) {
            children(api, jobId, "/periodic-", "No instances of periodic job found", "Previously Launched Jobs");
            return 0;
        }
        if (parameterized) {
            children(api, jobId, "/dispatch-", "No dispatched instances of parameterized job found",
                    "Dispatched Jobs");
            return 0;
        }

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

    /** A parent's children, listed by the prefix Nomad gives their IDs, with their status. */
    private void children(ApiClient api, String jobId, String suffix, String none, String title)
            throws ApiException {
        Table table = new Table("ID", "Status");
        int rows = 0;
        for (JsonNode child : api.get("/v1/jobs", Map.of("prefix", jobId + suffix))) {
            if (jobId.equals(Json.text(child.get("ParentID")))) {
                table.row(Json.text(child.get("ID")), Json.text(child.get("Status")));
                rows++;
            }
        }
        ctx.out().println();
        if (rows == 0) {
            ctx.out().println(none);
            return;
        }
        ctx.out().println(title);
        table.print(ctx.out());
    }

    /** Nomad's "Next Periodic Launch": the next cron time in the job's time zone, and how far off it is. */
    static String nextLaunch(JsonNode periodic) {
        ZoneId zone;
        try {
            String tz = Json.text(periodic.get("TimeZone"));
            zone = ZoneId.of(tz.isEmpty() ? "UTC" : tz);
        } catch (DateTimeException e) {
            return null;
        }
        List<String> specs = new ArrayList<>();
        periodic.path("Specs").forEach(spec -> specs.add(spec.asText()));
        if (!Json.text(periodic.get("Spec")).isEmpty()) {
            specs.add(Json.text(periodic.get("Spec")));
        }
        Instant now = Instant.now();
        Instant next = null;
        for (String spec : specs) {
            try {
                Instant t = CronExpression.parse(spec).next(now, zone);
                next = t != null && (next == null || t.isBefore(next)) ? t : next;
            } catch (IllegalArgumentException e) {
                // the server refuses such a job; nothing to show
            }
        }
        if (next == null) {
            return null;
        }
        return Nomad.time(next, zone) + " (" + GoDuration.format(Duration.ofSeconds(next.getEpochSecond()
                - now.getEpochSecond())) + " from now)";
    }

    private static String n(JsonNode group, String field) {
        return Long.toString(group.path(field).asLong());
    }
}
