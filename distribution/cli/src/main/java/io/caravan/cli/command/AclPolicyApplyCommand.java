package io.caravan.cli.command;

import java.io.IOException;
import java.util.List;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan acl policy apply [-description D] NAME PATH}: creates or updates a policy from a rules file. */
@Command(name = "apply", description = {"Create or update an ACL policy.",
        "The rules are read from PATH, or from standard input when PATH is '-'."})
public final class AclPolicyApplyCommand extends HttpCommand {

    @Option(names = {"-description", "--description"}, paramLabel = "<text>",
            description = "A human readable description of the policy.")
    String description = "";

    @Parameters(arity = "0..*", paramLabel = "NAME PATH", description = "The policy's name and its rules file.")
    List<String> args = List.of();

    public AclPolicyApplyCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error writing ACL policy";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 2) {
            throw new UsageException("This command takes two arguments: <name> and <path>");
        }
        String name = args.get(0);
        String rules;
        try {
            rules = InputFile.read(ctx, args.get(1));
        } catch (IOException e) {
            ctx.err().println((InputFile.STDIN.equals(args.get(1)) ? "Failed to read stdin: " : "Failed to read file: ")
                    + InputFile.reason(e));
            return 1;
        }
        ObjectNode policy = NomadJson.mapper().createObjectNode()
                .put("Name", name).put("Description", description).put("Rules", rules);
        api.put("/v1/acl/policy/" + Json.pathSegment(name), policy);
        ctx.out().println("Successfully wrote " + Nomad.quote(name) + " ACL policy!");
        return 0;
    }
}
