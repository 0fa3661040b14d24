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

/** {@code caravan acl policy info NAME}: {@code GET /v1/acl/policy/NAME}, its fields and its rules. */
@Command(name = "info", description = "Show an ACL policy and its rules.")
public final class AclPolicyInfoCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the policy in its JSON format.")
    boolean json;

    @Parameters(arity = "0..*", paramLabel = "NAME", description = "The policy's name.")
    List<String> args = List.of();

    public AclPolicyInfoCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error fetching info on ACL policy";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <name>");
        }
        JsonNode policy = api.get("/v1/acl/policy/" + Json.pathSegment(args.get(0)));
        if (json) {
            ctx.out().println(Json.indent(policy));
        } else {
            AclOutput.policy(ctx.out(), policy);
        }
        return 0;
    }
}
