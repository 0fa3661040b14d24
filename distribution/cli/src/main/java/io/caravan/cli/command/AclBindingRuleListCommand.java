package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan acl binding-rule list}: {@code GET /v1/acl/binding-rules}. */
@Command(name = "list", description = "List ACL binding rules.")
public final class AclBindingRuleListCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the rules in their JSON format.")
    boolean json;

    public AclBindingRuleListCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error listing ACL binding rules";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode rules = api.get("/v1/acl/binding-rules");
        if (json) {
            ctx.out().println(Json.indent(rules));
        } else {
            AclOutput.bindingRules(ctx.out(), rules);
        }
        return 0;
    }
}
