package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan acl token update [flags] ACCESSOR}: reads the token, changes what the flags give and writes it back
 * ({@code PUT /v1/acl/token/ACCESSOR}). Fields without a flag keep their value; {@code -policy} replaces the list.
 */
@Command(name = "update", description = "Update an ACL token.")
public final class AclTokenUpdateCommand extends HttpCommand {

    @Option(names = {"-name", "--name"}, paramLabel = "<name>", description = "A human readable name for the token.")
    String name = "";

    @Option(names = {"-type", "--type"}, paramLabel = "client|management", description = "The token's type.")
    String type = "";

    // Only when given: Nomad's CLI resets an unflagged token to non-global, which its server then refuses.
    @Option(names = {"-global", "--global"}, arity = "0..1", fallbackValue = "true",
            converter = GoBool.class, paramLabel = "<bool>",
            description = "Replicate the token to all regions.")
    Boolean global;

    @Option(names = {"-policy", "--policy"}, paramLabel = "<name>",
            description = "A policy of the token (client tokens only); repeatable; replaces the token's policies.")
    List<String> policies = new ArrayList<>();

    @Parameters(arity = "0..*", paramLabel = "ACCESSOR", description = "The token's accessor ID.")
    List<String> args = List.of();

    public AclTokenUpdateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error updating token";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <token_accessor_id>");
        }
        String path = "/v1/acl/token/" + Json.pathSegment(args.get(0));
        JsonNode current;
        try {
            current = api.get(path);
        } catch (ApiException e) {
            ctx.err().println("Error fetching token: " + e.getMessage());
            return 1;
        }
        if (!current.isObject()) {
            throw new ApiException("the agent sent no token");
        }
        ObjectNode token = ((ObjectNode) current).deepCopy();
        if (!name.isEmpty()) {
            token.put("Name", name);
        }
        if (!type.isEmpty()) {
            token.put("Type", type);
        }
        if (global != null) {
            token.put("Global", global);
        }
        if (!policies.isEmpty()) {
            ArrayNode policyNames = token.putArray("Policies");
            policies.forEach(policyNames::add);
        }
        AclOutput.token(ctx.out(), api.put(path, token));
        return 0;
    }
}
