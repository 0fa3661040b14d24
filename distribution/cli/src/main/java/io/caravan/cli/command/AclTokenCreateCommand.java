package io.caravan.cli.command;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.GoDuration;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code caravan acl token create [flags]}: {@code PUT /v1/acl/token} and the new token, secret included. Policies
 * and roles (by ID or name) may be repeated; {@code -ttl} makes the token expire.
 */
@Command(name = "create", description = "Create an ACL token.")
public final class AclTokenCreateCommand extends HttpCommand {

    @Option(names = {"-name", "--name"}, paramLabel = "<name>", description = "A human readable name for the token.")
    String name = "";

    @Option(names = {"-type", "--type"}, paramLabel = "client|management",
            description = "The token's type. Default: client.")
    String type = "client";

    @Option(names = {"-global", "--global"}, description = "Replicate the token to all regions.")
    boolean global;

    @Option(names = {"-policy", "--policy"}, paramLabel = "<name>",
            description = "A policy of the token (client tokens only); repeatable.")
    List<String> policies = new ArrayList<>();

    @Option(names = {"-role-id", "--role-id"}, paramLabel = "<id>", description = "A role of the token, by ID; repeatable.")
    List<String> roleIds = new ArrayList<>();

    @Option(names = {"-role-name", "--role-name"}, paramLabel = "<name>",
            description = "A role of the token, by name; repeatable.")
    List<String> roleNames = new ArrayList<>();

    @Option(names = {"-ttl", "--ttl"}, paramLabel = "<duration>",
            description = "Time to live, e.g. 5m or 1h; without it the token never expires.")
    String ttl;

    @Option(names = {"-json", "--json"}, description = "Output the token in its JSON format.")
    boolean json;

    public AclTokenCreateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error creating token";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        ObjectNode token = NomadJson.mapper().createObjectNode()
                .put("Name", name).put("Type", type).put("Global", global);
        ArrayNode policyNames = token.putArray("Policies");
        policies.forEach(policyNames::add);
        token.set("Roles", roleLinks(roleNames, roleIds));
        if (ttl != null && !ttl.isEmpty()) {
            Duration duration;
            try {
                duration = GoDuration.parse(ttl);
            } catch (IllegalArgumentException e) {
                ctx.err().println("Failed to parse TTL as time duration: " + e.getMessage());
                return 1;
            }
            // Go's duration text ("1h0m0s"), as Nomad's API client sends it.
            token.put("ExpirationTTL", GoDuration.format(duration));
        }
        JsonNode created = api.put("/v1/acl/token", token);
        if (json) {
            ctx.out().println(Json.indent(created));
        } else {
            AclOutput.token(ctx.out(), created);
        }
        return 0;
    }

    /** Nomad's role links: {@code {"Name": …}} per distinct name, then {@code {"ID": …}} per distinct ID. */
    static ArrayNode roleLinks(List<String> names, List<String> ids) {
        ArrayNode links = NomadJson.mapper().createArrayNode();
        new LinkedHashSet<>(names).forEach(n -> links.addObject().put("Name", n));
        new LinkedHashSet<>(ids).forEach(id -> links.addObject().put("ID", id));
        return links;
    }
}
