package io.caravan.cli.command;

import java.time.Instant;
import java.time.format.DateTimeFormatter;

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

    /** Go's {@code time.RFC3339}: {@code Z} for UTC, {@code +02:00} otherwise. */
    private static final DateTimeFormatter RFC3339 = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ssXXX");

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
                    submitDate(job.path("SubmitTime").asLong()));
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

    /** SubmitTime is Unix nanoseconds; Nomad leaves the cell empty for a zero time. */
    private String submitDate(long nanos) {
        if (nanos < 1_000_000_000L) {
            return "";
        }
        Instant at = Instant.ofEpochSecond(0, nanos);
        return RFC3339.format(at.atZone(ctx.zone()));
    }
}
