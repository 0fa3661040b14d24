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

/** {@code caravan job deployments JOB}: the job's deployments, or with {@code -latest} the latest one in full. */
@Command(name = "deployments", description = "List deployments for a job.")
public final class JobDeploymentsCommand extends HttpCommand {

    @Parameters(paramLabel = "JOB", description = "A job ID or a unique prefix of one.")
    String job;

    @Option(names = {"-latest", "--latest"}, description = "Display the latest deployment only.")
    boolean latest;

    @Option(names = {"-json", "--json"}, description = "Output the deployments in JSON format.")
    boolean json;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs.")
    boolean verbose;

    @Option(names = {"-all", "--all"}, description = "Include deployments of an older instance of the job.")
    boolean all;

    public JobDeploymentsCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error retrieving deployments";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        String jobId = Lookup.id(api, "/v1/jobs", "job", job.strip());
        String path = "/v1/job/" + Json.pathSegment(jobId);
        if (latest) {
            JsonNode d = api.get(path + "/deployment");
            if (json) {
                ctx.out().println(Json.indent(d));
            } else {
                Deployments.details(d, verbose, true, ctx.zone()).forEach(ctx.out()::println);
            }
            return 0;
        }
        JsonNode deployments = api.get(path + "/deployments", all ? Map.of("all", "true") : Map.of());
        if (json) {
            ctx.out().println(Json.indent(deployments));
            return 0;
        }
        Deployments.list(deployments, verbose).forEach(ctx.out()::println);
        return 0;
    }
}
