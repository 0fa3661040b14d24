package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.LinkedHashSet;
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

/** {@code caravan acl role create -name N -policy P... [-description D]}: {@code POST /v1/acl/role}. */
@Command(name = "create", description = "Create an ACL role.")
public final class AclRoleCreateCommand extends HttpCommand {

    @Option(names = {"-name", "--name"}, paramLabel = "<name>", description = "The role's name (required).")
    String name = "";

    @Option(names = {"-description", "--description"}, paramLabel = "<text>",
            description = "A human readable description of the role.")
    String description = "";

    @Option(names = {"-policy", "--policy"}, paramLabel = "<name>",
            description = "A policy of the role; repeatable, at least one.")
    List<String> policies = new ArrayList<>();

    @Option(names = {"-json", "--json"}, description = "Output the role in its JSON format.")
    boolean json;

    public AclRoleCreateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error creating ACL role";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        requireNameAndPolicies(name, policies);
        ObjectNode role = NomadJson.mapper().createObjectNode().put("Name", name).put("Description", description);
        role.set("Policies", policyLinks(policies));
        AclRoleInfoCommand.print(ctx, api.post("/v1/acl/role", role), json);
        return 0;
    }

    /** Nomad checks these before it calls the server, whose answer would be less clear. */
    static void requireNameAndPolicies(String name, List<String> policies) throws UsageException {
        if (name.isEmpty()) {
            throw new UsageException("ACL role name must be specified using the -name flag");
        }
        if (policies.isEmpty()) {
            throw new UsageException("At least one policy name must be specified using the -policy flag");
        }
    }

    /** {@code [{"Name": …}]}, one link per distinct policy name. */
    static ArrayNode policyLinks(List<String> policies) {
        ArrayNode links = NomadJson.mapper().createArrayNode();
        new LinkedHashSet<>(policies).forEach(p -> links.addObject().put("Name", p));
        return links;
    }
}
