package io.caravan.cli.command;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan job allocs JOB}: the job's allocations in the table {@code job status} shows. */
@Command(name = "allocs", description = "List allocations for a job.")
public final class JobAllocsCommand extends HttpCommand {

    @Parameters(paramLabel = "JOB", description = "A job ID or a unique prefix of one.")
    String job;

    @Option(names = {"-all", "--all"}, description = "Include allocations of an older instance of the job.")
    boolean all;

    @Option(names = {"-json", "--json"}, description = "Output the allocations in JSON format.")
    boolean json;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs, evaluations and absolute times.")
    boolean verbose;

    public JobAllocsCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error retrieving allocations";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        String jobId = Lookup.id(api, "/v1/jobs", "job", job.strip());
        JsonNode allocs = api.get("/v1/job/" + Json.pathSegment(jobId) + "/allocations",
                all ? Map.of("all", "true") : Map.of());
        if (json) {
            ctx.out().println(Json.indent(allocs));
            return 0;
        }
        AllocTable.lines(allocs, verbose, true, ctx.zone()).forEach(ctx.out()::println);
        return 0;
    }
}
