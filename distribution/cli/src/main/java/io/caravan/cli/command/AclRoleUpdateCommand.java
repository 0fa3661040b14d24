package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan acl role update [flags] ID}: reads the role, merges the flags into it (new policies are added) and
 * writes it back ({@code POST /v1/acl/role/ID}); {@code -no-merge} replaces every field instead.
 */
@Command(name = "update", description = "Update an ACL role.")
public final class AclRoleUpdateCommand extends HttpCommand {

    @Option(names = {"-name", "--name"}, paramLabel = "<name>", description = "The role's new name.")
    String name = "";

    @Option(names = {"-description", "--description"}, paramLabel = "<text>",
            description = "The role's new description.")
    String description = "";

    @Option(names = {"-policy", "--policy"}, paramLabel = "<name>",
            description = "A policy to add to the role (with -no-merge: the role's policies); repeatable.")
    List<String> policies = new ArrayList<>();

    @Option(names = {"-no-merge", "--no-merge"},
            description = "Replace the role's name, description and policies with the flags' values.")
    boolean noMerge;

    @Option(names = {"-json", "--json"}, description = "Output the role in its JSON format.")
    boolean json;

    @Parameters(arity = "0..*", paramLabel = "ID", description = "The role's ID.")
    List<String> args = List.of();

    public AclRoleUpdateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error updating ACL role";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <acl_role_id>");
        }
        if (noMerge) {
            AclRoleCreateCommand.requireNameAndPolicies(name, policies);
        } else if (name.isEmpty() && description.isEmpty() && policies.isEmpty()) {
            throw new UsageException("Please provide at least one flag to update the ACL role");
        }
        String id = args.get(0);
        String path = "/v1/acl/role/" + Json.pathSegment(id);
        // Read first in both modes, so that an unknown ID fails as such.
        JsonNode current;
        try {
            current = api.get(path);
        } catch (ApiException e) {
            ctx.err().println("Error when retrieving ACL role: " + e.getMessage());
            return 1;
        }
        if (!current.isObject()) {
            throw new ApiException("the agent sent no role");
        }
        ObjectNode role;
        if (noMerge) {
            role = NomadJson.mapper().createObjectNode().put("ID", id).put("Name", name)
                    .put("Description", description);
            role.set("Policies", AclRoleCreateCommand.policyLinks(policies));
        } else {
            role = ((ObjectNode) current).deepCopy();
            if (!name.isEmpty()) {
                role.put("Name", name);
            }
            if (!description.isEmpty()) {
                role.put("Description", description);
            }
            List<String> linked = AclOutput.policyNames(current);
            ArrayNode links = role.has("Policies") && role.get("Policies").isArray()
                    ? (ArrayNode) role.get("Policies") : role.putArray("Policies");
            policies.stream().distinct().filter(p -> !linked.contains(p))
                    .forEach(p -> links.addObject().put("Name", p));
        }
        AclRoleInfoCommand.print(ctx, api.post(path, role), json);
        return 0;
    }
}
