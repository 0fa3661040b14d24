package io.caravan.cli.command;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan acl binding-rule info ID}: {@code GET /v1/acl/binding-rule/ID}. */
@Command(name = "info", description = "Show an ACL binding rule.")
public final class AclBindingRuleInfoCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the rule in its JSON format.")
    boolean json;

    @Parameters(arity = "0..*", paramLabel = "ID", description = "The rule's ID.")
    List<String> args = List.of();

    public AclBindingRuleInfoCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error reading ACL binding rule";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <acl_binding_rule_id>");
        }
        print(ctx, api.get("/v1/acl/binding-rule/" + Json.pathSegment(args.get(0))), json);
        return 0;
    }

    static void print(Context ctx, JsonNode rule, boolean json) {
        if (json) {
            ctx.out().println(Json.indent(rule));
        } else {
            AclOutput.bindingRule(ctx.out(), rule);
        }
    }
}
