package io.caravan.cli.command;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan acl binding-rule create -auth-method M -bind-type T [-bind-name N] [-selector S]}. */
@Command(name = "create", description = "Create an ACL binding rule.")
public final class AclBindingRuleCreateCommand extends HttpCommand {

    @Option(names = {"-description", "--description"}, paramLabel = "<text>",
            description = "A human readable description of the rule.")
    String description = "";

    @Option(names = {"-auth-method", "--auth-method"}, paramLabel = "<name>",
            description = "The auth method whose logins the rule binds (required).")
    String authMethod = "";

    @Option(names = {"-selector", "--selector"}, paramLabel = "<expression>",
            description = "Which logins match, over value.<claim> and list.<claim>; empty: all.")
    String selector = "";

    @Option(names = {"-bind-type", "--bind-type"}, paramLabel = "<type>",
            description = "role, policy or management (required).")
    String bindType = "";

    @Option(names = {"-bind-name", "--bind-name"}, paramLabel = "<name>",
            description = "The role or policy bound, with ${value.<claim>} interpolated; empty for management.")
    String bindName = "";

    @Option(names = {"-json", "--json"}, description = "Output the rule in its JSON format.")
    boolean json;

    public AclBindingRuleCreateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error creating ACL binding rule";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        AclAuthMethodCreateCommand.require(authMethod,
                "ACL binding rule auth method must be specified using the -auth-method flag");
        AclAuthMethodCreateCommand.require(bindType,
                "ACL binding rule bind type must be specified using the -bind-type flag");
        ObjectNode rule = NomadJson.mapper().createObjectNode().put("Description", description)
                .put("AuthMethod", authMethod).put("Selector", selector).put("BindType", bindType)
                .put("BindName", bindName);
        AclBindingRuleInfoCommand.print(ctx, api.post("/v1/acl/binding-rule", rule), json);
        return 0;
    }
}
