package io.caravan.cli.command;

import java.util.List;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code caravan acl auth-method delete NAME}: {@code DELETE /v1/acl/auth-method/NAME} (its binding rules too). */
@Command(name = "delete", description = "Delete an ACL auth method and its binding rules.")
public final class AclAuthMethodDeleteCommand extends HttpCommand {

    @Parameters(arity = "0..*", paramLabel = "NAME", description = "The method's name.")
    List<String> args = List.of();

    public AclAuthMethodDeleteCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error deleting ACL auth method";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <acl_auth_method_name>");
        }
        api.delete("/v1/acl/auth-method/" + Json.pathSegment(args.get(0)), Map.of());
        ctx.out().println("ACL auth method " + args.get(0) + " successfully deleted");
        return 0;
    }
}
