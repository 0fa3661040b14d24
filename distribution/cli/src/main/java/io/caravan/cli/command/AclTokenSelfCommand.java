package io.caravan.cli.command;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;

/** {@code caravan acl token self}: {@code GET /v1/acl/token/self}, the token this command is run with. */
@Command(name = "self", description = "Show the ACL token given by -token, CARAVAN_TOKEN or NOMAD_TOKEN.")
public final class AclTokenSelfCommand extends HttpCommand {

    public AclTokenSelfCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error fetching self token";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        // Without a token the agent would answer for the anonymous one; say what is missing instead.
        if (connection.resolve(ctx).token() == null) {
            ctx.err().println("No token present in the environment or set via the CLI flag");
            return 1;
        }
        AclOutput.token(ctx.out(), api.get("/v1/acl/token/self"));
        return 0;
    }
}
