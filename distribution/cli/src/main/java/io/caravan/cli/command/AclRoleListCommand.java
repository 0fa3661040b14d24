package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan acl role list}: {@code GET /v1/acl/roles}. */
@Command(name = "list", description = "List ACL roles.")
public final class AclRoleListCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the roles in their JSON format.")
    boolean json;

    public AclRoleListCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error listing ACL roles";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode roles = api.get("/v1/acl/roles");
        if (json) {
            ctx.out().println(Json.indent(roles));
        } else {
            AclOutput.roles(ctx.out(), roles);
        }
        return 0;
    }
}
