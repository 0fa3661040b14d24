package io.caravan.cli.command;

import java.util.List;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code caravan acl policy delete NAME}: {@code DELETE /v1/acl/policy/NAME}. */
@Command(name = "delete", description = "Delete an ACL policy.")
public final class AclPolicyDeleteCommand extends HttpCommand {

    @Parameters(arity = "0..*", paramLabel = "NAME", description = "The policy's name.")
    List<String> args = List.of();

    public AclPolicyDeleteCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error deleting ACL policy";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <name>");
        }
        api.delete("/v1/acl/policy/" + Json.pathSegment(args.get(0)), Map.of());
        ctx.out().println("Successfully deleted " + args.get(0) + " policy!");
        return 0;
    }
}
