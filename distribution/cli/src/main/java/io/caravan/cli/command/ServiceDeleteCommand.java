package io.caravan.cli.command;

import java.util.List;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code caravan service delete NAME ID}: removes one registration (its client registers it again while it runs). */
@Command(name = "delete", description = "Delete a service registration.")
public final class ServiceDeleteCommand extends HttpCommand {

    @Parameters(arity = "0..*", paramLabel = "NAME ID")
    List<String> args = List.of();

    public ServiceDeleteCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error deleting service registration";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 2) {
            throw new UsageException("This command takes two arguments: <service_name> and <service_id>");
        }
        api.delete("/v1/service/" + args.get(0) + "/" + args.get(1),
                Map.of());
        ctx.out().println("Successfully deleted service registration");
        return 0;
    }
}
