package io.caravan.cli.command;


import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code caravan job run FILE}: registers the job and prints its evaluation as Nomad's {@code -detach} does.
 * (Monitoring the evaluation until allocations are placed comes with the scheduler.)
 */
@Command(name = "run", description = "Submit a job (HCL or JSON) to the cluster.")
public final class JobRunCommand extends HttpCommand {

    @Mixin
    JobFileOptions jobFile;

    @Option(names = {"-check-index", "--check-index"}, description = "Register only if the job's modify index is this.")
    Long checkIndex;

    @Option(names = {"-detach", "--detach"}, description = "Return at once with the evaluation ID.")
    boolean detach;

    public JobRunCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error submitting job";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode job = jobFile.job(api);
        ObjectNode request = NomadJson.mapper().createObjectNode();
        request.set("Job", job);
        if (checkIndex != null) {
            request.put("EnforceIndex", true);
            request.put("JobModifyIndex", checkIndex);
        }
        JsonNode response = api.put("/v1/jobs", request);
        ctx.out().println("Job registration successful");
        ctx.out().println("Evaluation ID: " + Json.text(response.get("EvalID")));
        return 0;
    }
}
