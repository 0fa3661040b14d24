package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan status} without arguments: Nomad's job list. */
@Command(name = "status", description = "List the jobs known to the cluster.")
public final class StatusCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the jobs in their JSON format.")
    boolean json;

    public StatusCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error querying jobs";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        return listJobs(ctx, api, json);
    }

    /** Nomad's job list, shared by {@code status} and {@code job status} without an ID. */
    static int listJobs(Context ctx, ApiClient api, boolean json) throws ApiException {
        JsonNode jobs = api.get("/v1/jobs");
        if (!jobs.isArray()) {
            throw new ApiException("error decoding response: expected a JSON array of jobs");
        }
        // Nomad says so even under -json.
        if (jobs.isEmpty()) {
            ctx.out().println("No running jobs");
            return 0;
        }
        if (json) {
            ctx.out().println(Json.indent(jobs));
            return 0;
        }
        Table table = new Table("ID", "Type", "Priority", "Status", "Submit Date");
        for (JsonNode job : jobs) {
            table.row(Json.text(job.get("ID")), type(job), Json.text(job.get("Priority")), status(job),
                    io.caravan.cli.format.Nomad.date(job.path("SubmitTime").asLong(), ctx.zone()));
        }
        table.print(ctx.out());
        return 0;
    }

    private static String type(JsonNode job) {
        String type = Json.text(job.get("Type"));
        if (job.path("Periodic").asBoolean()) {
            type += "/periodic";
        }
        if (job.path("ParameterizedJob").asBoolean()) {
            type += "/parameterized";
        }
        return type;
    }

    private static String status(JsonNode job) {
        String status = Json.text(job.get("Status"));
        return job.path("Stop").asBoolean() ? status + " (stopped)" : status;
    }
}
