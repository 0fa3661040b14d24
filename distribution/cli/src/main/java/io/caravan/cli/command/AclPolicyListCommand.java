package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan acl policy list}: {@code GET /v1/acl/policies}, names and descriptions. */
@Command(name = "list", description = "List ACL policies.")
public final class AclPolicyListCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the policies in their JSON format.")
    boolean json;

    public AclPolicyListCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error listing ACL policies";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode policies = api.get("/v1/acl/policies");
        if (json) {
            ctx.out().println(Json.indent(policies));
        } else {
            AclOutput.policies(ctx.out(), policies);
        }
        return 0;
    }
}
