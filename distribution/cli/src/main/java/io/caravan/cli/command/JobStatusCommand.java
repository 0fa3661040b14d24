package io.caravan.cli.command;

import java.util.Map;

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

/** {@code caravan job status [ID]}: the job list, or one job with its summary and allocations. */
@Command(name = "status", description = "Display the status of jobs, or of one job.")
public final class JobStatusCommand extends HttpCommand {

    @Parameters(arity = "0..1", paramLabel = "ID", description = "A job ID or a unique prefix of one.")
    String id;

    @Option(names = {"-json", "--json"}, description = "Output in JSON format.")
    boolean json;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs and absolute times.")
    boolean verbose;

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
                "Periodic", Boolean.toString(!job.path("Periodic").isMissingNode() && !job.path("Periodic").isNull()),
                "Parameterized", Boolean.toString(!job.path("ParameterizedJob").isMissingNode()
                        && !job.path("ParameterizedJob").isNull()));

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

        JsonNode allocs = api.get(path + "/allocations", Map.of());
        ctx.out().println();
        ctx.out().println("Allocations");
        AllocTable.lines(allocs, verbose, true, ctx.zone()).forEach(ctx.out()::println);
        return 0;
    }

    private static String n(JsonNode group, String field) {
        return Long.toString(group.path(field).asLong());
    }
}
