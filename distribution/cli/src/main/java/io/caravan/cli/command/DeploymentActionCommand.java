package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What {@code deployment promote|fail|pause|resume|unblock} share: the deployment lookup (errors "Error retrieving
 * deployment: ..."), the write to {@code /v1/deployment/<action>/<id>} (errors "Error <verb> deployment: ..."), and
 * following the evaluation it creates unless {@code -detach}.
 */
abstract class DeploymentActionCommand extends HttpCommand {

    @Parameters(paramLabel = "ID", description = "A deployment ID or a unique prefix of one.")
    String id;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs.")
    boolean verbose;

    private String stage = "Error retrieving deployment";

    DeploymentActionCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected final String errorPrefix() {
        return stage;
    }

    @Override
    protected final int run(ApiClient api) throws ApiException, UsageException {
        JsonNode d = Deployments.lookup(api, id, verbose, ctx.err());
        if (d == null) {
            return 1;
        }
        String deploymentId = Json.text(d.get("ID"));
        stage = "Error " + gerund() + " deployment";
        return act(api, deploymentId);
    }

    /** Nomad's verb in the error: "promoting", "failing", ... */
    abstract String gerund();

    abstract int act(ApiClient api, String deploymentId) throws ApiException;

    /** {@code PUT /v1/deployment/<action>/<id>} with {@code {"DeploymentID": id, ...}}. */
    static JsonNode write(ApiClient api, String action, String deploymentId, ObjectNode body) throws ApiException {
        ObjectNode request = NomadJson.mapper().createObjectNode();
        request.put("DeploymentID", deploymentId);
        if (body != null) {
            request.setAll(body);
        }
        return api.put("/v1/deployment/" + action + "/" + Json.pathSegment(deploymentId), request);
    }

    /**
     * The evaluation a write created, followed unless {@code -detach}; none: nothing to do. {@code announced}: the
     * command printed its outcome already (fail, resume, unblock), so Nomad prints a blank line before following
     * and nothing with {@code -detach}; otherwise (promote) {@code -detach} prints the evaluation ID.
     */
    int followEvaluation(ApiClient api, JsonNode response, boolean detach, boolean announced) {
        String evalId = Json.text(response.get("EvalID"));
        if (evalId.isEmpty()) {
            return 0;
        }
        if (detach) {
            if (!announced) {
                ctx.out().println("Evaluation ID: " + evalId);
            }
            return 0;
        }
        if (announced) {
            ctx.out().println();
        }
        return new EvalMonitor(ctx, api, verbose).monitor(evalId);
    }
}
