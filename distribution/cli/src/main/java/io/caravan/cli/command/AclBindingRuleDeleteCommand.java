package io.caravan.cli.command;

import java.util.List;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code caravan acl binding-rule delete ID}: {@code DELETE /v1/acl/binding-rule/ID}. */
@Command(name = "delete", description = "Delete an ACL binding rule.")
public final class AclBindingRuleDeleteCommand extends HttpCommand {

    @Parameters(arity = "0..*", paramLabel = "ID", description = "The rule's ID.")
    List<String> args = List.of();

    public AclBindingRuleDeleteCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error deleting ACL binding rule";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <acl_binding_rule_id>");
        }
        api.delete("/v1/acl/binding-rule/" + Json.pathSegment(args.get(0)), Map.of());
        ctx.out().println("ACL binding rule " + args.get(0) + " successfully deleted");
        return 0;
    }
}
