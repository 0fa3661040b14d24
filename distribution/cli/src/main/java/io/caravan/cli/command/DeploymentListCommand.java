package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan deployment list}: Nomad's deployment table. */
@Command(name = "list", description = "List all deployments.")
public final class DeploymentListCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the deployments in JSON format.")
    boolean json;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs.")
    boolean verbose;

    public DeploymentListCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error retrieving deployments";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode deployments = api.get("/v1/deployments");
        if (json) {
            ctx.out().println(Json.indent(deployments));
            return 0;
        }
        Deployments.list(deployments, verbose).forEach(ctx.out()::println);
        return 0;
    }
}
