package io.caravan.cli.command;

import java.util.List;

import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code caravan acl token info ACCESSOR}: {@code GET /v1/acl/token/ACCESSOR}. */
@Command(name = "info", description = "Show an ACL token.")
public final class AclTokenInfoCommand extends HttpCommand {

    @Parameters(arity = "0..*", paramLabel = "ACCESSOR", description = "The token's accessor ID.")
    List<String> args = List.of();

    public AclTokenInfoCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error fetching token";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <token_accessor_id>");
        }
        AclOutput.token(ctx.out(), api.get("/v1/acl/token/" + Json.pathSegment(args.get(0))));
        return 0;
    }
}
