package io.caravan.cli.command;

import java.util.List;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code caravan namespace delete NAME}: {@code DELETE /v1/namespace/NAME}. */
@Command(name = "delete", description = "Delete a namespace.")
public final class NamespaceDeleteCommand extends HttpCommand {

    @Parameters(arity = "0..*", paramLabel = "<namespace>", description = "The namespace's name.")
    List<String> args = List.of();

    public NamespaceDeleteCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error deleting namespace";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <namespace>");
        }
        api.delete("/v1/namespace/" + Json.pathSegment(args.get(0)), Map.of());
        ctx.out().println("Successfully deleted namespace \"" + args.get(0) + "\"!");
        return 0;
    }
}
