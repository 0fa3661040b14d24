package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan acl auth-method list}: {@code GET /v1/acl/auth-methods}. */
@Command(name = "list", description = "List ACL auth methods.")
public final class AclAuthMethodListCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the methods in their JSON format.")
    boolean json;

    public AclAuthMethodListCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error listing ACL auth methods";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode methods = api.get("/v1/acl/auth-methods");
        if (json) {
            ctx.out().println(Json.indent(methods));
        } else {
            AclOutput.authMethods(ctx.out(), methods);
        }
        return 0;
    }
}
