package io.caravan.cli.command;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan acl auth-method create -name N -type JWT|OIDC -max-token-ttl D -token-locality L -config C}. */
@Command(name = "create", description = "Create an ACL auth method.")
public final class AclAuthMethodCreateCommand extends HttpCommand {

    @Option(names = {"-name", "--name"}, paramLabel = "<name>", description = "The method's name (required).")
    String name = "";

    @Option(names = {"-type", "--type"}, paramLabel = "<type>", description = "JWT or OIDC (required).")
    String type = "";

    @Option(names = {"-max-token-ttl", "--max-token-ttl"}, paramLabel = "<duration>",
            description = "How long the tokens of a login live (required).")
    String maxTokenTtl = "";

    @Option(names = {"-token-locality", "--token-locality"}, paramLabel = "<local|global>",
            description = "Whether login tokens are local to the region or global (required).")
    String tokenLocality = "";

    @Option(names = {"-token-name-format", "--token-name-format"}, paramLabel = "<format>",
            description = "The name of login tokens; default ${auth_method_type}-${auth_method_name}.")
    String tokenNameFormat = "";

    @Option(names = {"-default", "--default"}, description = "The method logins use when they name none.")
    boolean isDefault;

    @Option(names = {"-config", "--config"}, paramLabel = "<json>",
            description = "The method's configuration as JSON; '-' reads it from standard input, '@path' from a file "
                    + "(required).")
    String config = "";

    @Option(names = {"-json", "--json"}, description = "Output the method in its JSON format.")
    boolean json;

    public AclAuthMethodCreateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error creating ACL auth method";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        require(name, "ACL auth method name must be specified using the -name flag");
        require(type, "ACL auth method type must be specified using the -type flag");
        require(maxTokenTtl, "ACL auth method max token TTL must be specified using the -max-token-ttl flag");
        require(tokenLocality, "ACL auth method token locality must be specified using the -token-locality flag");
        require(config, "ACL auth method config must be specified using the -config flag");
        ObjectNode method = NomadJson.mapper().createObjectNode().put("Name", name).put("Type", type.toUpperCase())
                .put("MaxTokenTTL", maxTokenTtl).put("TokenLocality", tokenLocality)
                .put("TokenNameFormat", tokenNameFormat).put("Default", isDefault);
        method.set("Config", readConfig(ctx, config));
        AclAuthMethodInfoCommand.print(ctx, api.post("/v1/acl/auth-method", method), json);
        return 0;
    }

    static void require(String value, String message) throws UsageException {
        if (value.isEmpty()) {
            throw new UsageException(message);
        }
    }

    /** The {@code -config} value: JSON as given, or read from standard input ({@code -}) or a file ({@code @path}). */
    static JsonNode readConfig(Context ctx, String value) throws UsageException {
        String text;
        try {
            text = value.equals(InputFile.STDIN) ? InputFile.read(ctx, value)
                    : value.startsWith("@") ? InputFile.read(ctx, value.substring(1)) : value;
        } catch (IOException e) {
            throw new UsageException("Error reading the auth method config: " + InputFile.reason(e));
        }
        try {
            JsonNode node = NomadJson.mapper().readTree(text);
            if (node == null || !node.isObject()) {
                throw new UsageException("The auth method config must be a JSON object");
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new UsageException("Unable to parse the auth method config as JSON: " + e.getOriginalMessage());
        }
    }
}
