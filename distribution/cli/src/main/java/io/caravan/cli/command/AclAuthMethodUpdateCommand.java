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

/**
 * {@code caravan acl auth-method update [flags] NAME}: reads the method, sets the flags given ({@code -config}
 * replaces the whole configuration) and writes it back ({@code POST /v1/acl/auth-method/NAME}).
 */
@Command(name = "update", description = "Update an ACL auth method.")
public final class AclAuthMethodUpdateCommand extends HttpCommand {

    @Option(names = {"-type", "--type"}, paramLabel = "<type>", description = "JWT or OIDC.")
    String type = "";

    @Option(names = {"-max-token-ttl", "--max-token-ttl"}, paramLabel = "<duration>",
            description = "How long the tokens of a login live.")
    String maxTokenTtl = "";

    @Option(names = {"-token-locality", "--token-locality"}, paramLabel = "<local|global>",
            description = "Whether login tokens are local to the region or global.")
    String tokenLocality = "";

    @Option(names = {"-token-name-format", "--token-name-format"}, paramLabel = "<format>",
            description = "The name of login tokens.")
    String tokenNameFormat = "";

    @Option(names = {"-default", "--default"}, arity = "0..1", paramLabel = "<bool>",
            description = "The method logins use when they name none.")
    Boolean isDefault;

    @Option(names = {"-config", "--config"}, paramLabel = "<json>",
            description = "The method's new configuration as JSON; '-' reads standard input, '@path' a file.")
    String config = "";

    @Option(names = {"-json", "--json"}, description = "Output the method in its JSON format.")
    boolean json;

    @Parameters(arity = "0..*", paramLabel = "NAME", description = "The method's name.")
    List<String> args = List.of();

    public AclAuthMethodUpdateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error updating ACL auth method";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <acl_auth_method_name>");
        }
        if (type.isEmpty() && maxTokenTtl.isEmpty() && tokenLocality.isEmpty() && tokenNameFormat.isEmpty()
                && isDefault == null && config.isEmpty()) {
            throw new UsageException("Please provide at least one flag to update the ACL auth method");
        }
        JsonNode newConfig = config.isEmpty() ? null : AclAuthMethodCreateCommand.readConfig(ctx, config);
        String path = "/v1/acl/auth-method/" + Json.pathSegment(args.get(0));
        JsonNode current;
        try {
            current = api.get(path);
        } catch (ApiException e) {
            ctx.err().println("Error when retrieving ACL auth method: " + e.getMessage());
            return 1;
        }
        if (!current.isObject()) {
            throw new ApiException("the agent sent no auth method");
        }
        ObjectNode method = ((ObjectNode) current).deepCopy();
        if (!type.isEmpty()) {
            method.put("Type", type.toUpperCase());
        }
        if (!maxTokenTtl.isEmpty()) {
            method.put("MaxTokenTTL", maxTokenTtl);
        }
        if (!tokenLocality.isEmpty()) {
            method.put("TokenLocality", tokenLocality);
        }
        if (!tokenNameFormat.isEmpty()) {
            method.put("TokenNameFormat", tokenNameFormat);
        }
        if (isDefault != null) {
            method.put("Default", isDefault);
        }
        if (newConfig != null) {
            method.set("Config", newConfig);
        }
        AclAuthMethodInfoCommand.print(ctx, api.post(path, method), json);
        return 0;
    }
}
