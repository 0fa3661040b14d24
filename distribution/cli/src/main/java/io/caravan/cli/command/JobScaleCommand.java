package io.caravan.cli.command;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan job scale JOB [GROUP] COUNT}: {@code PUT /v1/job/:id/scale}, then follows the evaluation as
 * {@code job run} does ({@code -detach} prints its ID). The group may be left out when the job has only one.
 */
@Command(name = "scale", description = "Change the count of a job's task group.")
public final class JobScaleCommand extends HttpCommand {

    @Option(names = {"-detach", "--detach"}, description = "Return at once with the evaluation ID.")
    boolean detach;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs.")
    boolean verbose;

    @Parameters(arity = "0..*", paramLabel = "<job> [<group>] <count>", description = "The job, its group, the count.")
    List<String> args = List.of();

    public JobScaleCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error submitting scaling request";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 2 && args.size() != 3) {
            throw new UsageException("This command takes two or three arguments: <job> [<group>] <count>");
        }
        String jobId = args.get(0);
        String countText = args.get(args.size() - 1);
        long count;
        try {
            count = Long.parseLong(countText);
        } catch (NumberFormatException e) {
            ctx.err().println("Failed to convert count string to int: strconv.Atoi: parsing \"" + countText
                    + "\": invalid syntax");
            return 1;
        }
        String group;
        if (args.size() == 3) {
            group = args.get(1);
        } else {
            JsonNode groups = api.get("/v1/job/" + Json.pathSegment(jobId)).path("TaskGroups");
            if (groups.size() != 1) {
                ctx.err().println("Group name required");
                return 1;
            }
            group = Json.text(groups.get(0).get("Name"));
        }
        ObjectNode request = NomadJson.mapper().createObjectNode();
        request.put("Count", count);
        request.putObject("Target").put("Group", group);
        request.put("Message", "submitted using the Caravan CLI");
        JsonNode response = api.put("/v1/job/" + Json.pathSegment(jobId) + "/scale", request);
        String warnings = Json.text(response.get("Warnings"));
        if (!warnings.isEmpty()) {
            ctx.out().println("Job Warnings:");
            ctx.out().println(warnings);
            ctx.out().println();
        }
        String evalId = Json.text(response.get("EvalID"));
        if (detach || evalId.isEmpty()) {
            if (!evalId.isEmpty()) {
                ctx.out().println("Evaluation ID: " + evalId);
            }
            return 0;
        }
        return new EvalMonitor(ctx, api, verbose).monitor(evalId);
    }
}
