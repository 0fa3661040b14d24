package io.caravan.cli.command;

import java.util.List;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code caravan acl token delete ACCESSOR}: {@code DELETE /v1/acl/token/ACCESSOR}. */
@Command(name = "delete", description = "Delete an ACL token.")
public final class AclTokenDeleteCommand extends HttpCommand {

    @Parameters(arity = "0..*", paramLabel = "ACCESSOR", description = "The token's accessor ID.")
    List<String> args = List.of();

    public AclTokenDeleteCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error deleting token";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <token_accessor_id>");
        }
        api.delete("/v1/acl/token/" + Json.pathSegment(args.get(0)), Map.of());
        ctx.out().println("Token " + args.get(0) + " successfully deleted");
        return 0;
    }
}
