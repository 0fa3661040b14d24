package io.caravan.cli.command;

import java.util.List;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code caravan acl role delete ID}: {@code DELETE /v1/acl/role/ID}. */
@Command(name = "delete", description = "Delete an ACL role.")
public final class AclRoleDeleteCommand extends HttpCommand {

    @Parameters(arity = "0..*", paramLabel = "ID", description = "The role's ID.")
    List<String> args = List.of();

    public AclRoleDeleteCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error deleting ACL role";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <acl_role_id>");
        }
        api.delete("/v1/acl/role/" + Json.pathSegment(args.get(0)), Map.of());
        ctx.out().println("ACL role " + args.get(0) + " successfully deleted");
        return 0;
    }
}
