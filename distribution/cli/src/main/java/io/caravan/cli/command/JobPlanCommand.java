package io.caravan.cli.command;

import java.time.Duration;
import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.AllocMetrics;
import io.caravan.cli.format.GoDuration;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.JobDiff;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code caravan job plan FILE}: a scheduler dry run ({@code PUT /v1/job/:id/plan} with {@code Diff}) printed as
 * Nomad does: the job diff, what the scheduler would do, and the {@code -check-index} hint. Exit codes as Nomad's:
 * 0 when no allocations would be created or destroyed, 1 when some would, 255 on errors (usage errors included).
 */
@Command(name = "plan", description = "Dry-run a job update: show the changes and what the scheduler would do.",
        exitCodeOnInvalidInput = JobPlanCommand.ERROR)
public final class JobPlanCommand extends HttpCommand {
    static final int ERROR = 255;

    private static final String CHECK_INDEX_HELP = """
            To submit the job with version verification run:

            caravan job run -check-index %d %s%s

            When running the job with the check-index flag, the job will only be run if the
            job modify index given matches the server-side version. If the index has
            changed, another user has modified the job and the plan's results are
            potentially invalid.""";

    @Mixin
    JobFileOptions jobFile;

    @Option(names = {"-diff", "--diff"}, arity = "0..1", defaultValue = "true", fallbackValue = "true",
            description = "Show the job diff (default true; -diff=false hides it).")
    boolean diff;

    @Option(names = {"-verbose", "--verbose"}, description = "Expand added and deleted groups, tasks and objects.")
    boolean verbose;

    @Option(names = {"-json-output", "--json-output"}, description = "Print the plan response as JSON.")
    boolean jsonOutput;

    public JobPlanCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error during plan";
    }

    @Override
    protected int errorExitCode() {
        return ERROR;
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode job = jobFile.job(api);
        ObjectNode request = NomadJson.mapper().createObjectNode();
        request.set("Job", job);
        request.put("Diff", true);
        JsonNode plan;
        try {
            plan = api.put("/v1/job/" + Json.pathSegment(Json.text(job.get("ID"))) + "/plan", request);
        } catch (ApiException e) {
            if (!e.unreachable()) {
                throw e;
            }
            // The scheduler's dry run needs a server; say so rather than only "connection refused".
            throw new ApiException(e.getMessage() + ": job plan needs a Caravan server; start one (caravan agent "
                    + "-dev) or point -address / CARAVAN_ADDR at one");
        }
        if (jsonOutput) {
            ctx.out().println(Json.indent(plan));
            return exitCode(plan);
        }
        if (diff) {
            ctx.out().println(JobDiff.format(plan.path("Diff"), verbose));
            ctx.out().println();
        }
        ctx.out().println("Scheduler dry-run:");
        ctx.out().println(dryRun(plan, job));
        ctx.out().println();
        String warnings = Json.text(plan.get("Warnings"));
        if (!warnings.isEmpty()) {
            ctx.out().println("Job Warnings:");
            ctx.out().println(warnings);
            ctx.out().println();
        }
        long index = plan.path("JobModifyIndex").asLong();
        ctx.out().println("Job Modify Index: " + index);
        ctx.out().println(CHECK_INDEX_HELP.formatted(index, runArguments(), jobFile.file));
        return exitCode(plan);
    }

    /** The scheduler's part: all placed, or why not per group; a rolling update; the next periodic launch. */
    private String dryRun(JsonNode plan, JsonNode job) {
        StringBuilder out = new StringBuilder();
        JsonNode failed = plan.path("FailedTGAllocs");
        if (!failed.isObject() || failed.isEmpty()) {
            out.append("- All tasks successfully allocated.\n");
        } else {
            out.append("system".equals(Json.text(job.get("Type")))
                    ? "- WARNING: Failed to place allocations on all nodes.\n"
                    : "- WARNING: Failed to place all allocations.\n");
            for (String group : Json.sortedFieldNames(failed)) {
                JsonNode metric = failed.get(group);
                out.append("  Task Group ").append(Nomad.quote(group)).append(" (")
                        .append(AllocMetrics.failedToPlace(metric)).append("):\n")
                        .append(String.join("\n", AllocMetrics.lines(metric, "    "))).append("\n\n");
            }
        }
        for (JsonNode eval : plan.path("CreatedEvals")) {
            if ("rolling-update".equals(Json.text(eval.get("TriggeredBy")))) {
                out.append("- Rolling update, next evaluation will be in ")
                        .append(GoDuration.format(Duration.ofNanos(eval.path("Wait").asLong()))).append(".\n");
            }
        }
        Instant next = Nomad.instant(plan.get("NextPeriodicLaunch"));
        if (next != null && !Json.present(job.get("ParameterizedJob"))) {
            Instant now = Instant.now();
            out.append("- If submitted now, next periodic launch would be at ").append(Nomad.time(next, ctx.zone()))
                    .append(" (").append(GoDuration.format(Duration.ofSeconds(
                            next.getEpochSecond() - now.getEpochSecond()))).append(" from now).\n");
        }
        return out.toString().stripTrailing();
    }

    /** The {@code -var}/{@code -var-file} flags to repeat in the hint, each followed by a space. */
    private String runArguments() {
        StringBuilder args = new StringBuilder();
        jobFile.vars.forEach(v -> args.append("-var=").append(Nomad.quote(v)).append(' '));
        jobFile.varFiles.forEach(f -> args.append("-var-file=").append(Nomad.quote(f.toString())).append(' '));
        return args.toString();
    }

    /** Nomad's rule: 1 when allocations would be placed, stopped, migrated, destructively updated or canaried. */
    private static int exitCode(JsonNode plan) {
        if ("None".equals(Json.text(plan.path("Diff").get("Type")))) {
            return 0;
        }
        JsonNode updates = plan.path("Annotations").path("DesiredTGUpdates");
        for (JsonNode group : updates) {
            long changes = 0;
            for (String kind : new String[] {"Stop", "Place", "Migrate", "DestructiveUpdate", "Canary"}) {
                changes += group.path(kind).asLong();
            }
            if (changes > 0) {
                return 1;
            }
        }
        return 0;
    }
}
