package io.caravan.cli.command;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan acl binding-rule update [flags] ID}: the rule with the flags given, written back. */
@Command(name = "update", description = "Update an ACL binding rule.")
public final class AclBindingRuleUpdateCommand extends HttpCommand {

    @Option(names = {"-description", "--description"}, paramLabel = "<text>", description = "The new description.")
    String description;

    @Option(names = {"-selector", "--selector"}, paramLabel = "<expression>", description = "The new selector.")
    String selector;

    @Option(names = {"-bind-type", "--bind-type"}, paramLabel = "<type>",
            description = "role, policy or management.")
    String bindType;

    @Option(names = {"-bind-name", "--bind-name"}, paramLabel = "<name>", description = "The new bind name.")
    String bindName;

    @Option(names = {"-json", "--json"}, description = "Output the rule in its JSON format.")
    boolean json;

    @Parameters(arity = "0..*", paramLabel = "ID", description = "The rule's ID.")
    List<String> args = List.of();

    public AclBindingRuleUpdateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error updating ACL binding rule";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <acl_binding_rule_id>");
        }
        if (description == null && selector == null && bindType == null && bindName == null) {
            throw new UsageException("Please provide at least one flag to update the ACL binding rule");
        }
        String path = "/v1/acl/binding-rule/" + Json.pathSegment(args.get(0));
        JsonNode current;
        try {
            current = api.get(path);
        } catch (ApiException e) {
            ctx.err().println("Error when retrieving ACL binding rule: " + e.getMessage());
            return 1;
        }
        if (!current.isObject()) {
            throw new ApiException("the agent sent no binding rule");
        }
        ObjectNode rule = ((ObjectNode) current).deepCopy();
        if (description != null) {
            rule.put("Description", description);
        }
        if (selector != null) {
            rule.put("Selector", selector);
        }
        if (bindType != null) {
            rule.put("BindType", bindType);
        }
        if (bindName != null) {
            rule.put("BindName", bindName);
        }
        AclBindingRuleInfoCommand.print(ctx, api.post(path, rule), json);
        return 0;
    }
}
