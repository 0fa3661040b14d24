package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code caravan login -method NAME -type JWT -login-token T}: trades an identity provider's JWT for an ACL token
 * ({@code POST /v1/acl/login}). Without {@code -method}, the default method; without {@code -type}, that method's.
 */
@Command(name = "login", description = "Log in through an ACL auth method.")
public final class LoginCommand extends HttpCommand {

    @Option(names = {"-method", "--method"}, paramLabel = "<name>",
            description = "The auth method; the default method when not given.")
    String method = "";

    @Option(names = {"-type", "--type"}, paramLabel = "<type>", description = "The method's type: JWT.")
    String type = "";

    @Option(names = {"-login-token", "--login-token"}, paramLabel = "<jwt>",
            description = "The identity provider's token (required for JWT).")
    String loginToken = "";

    @Option(names = {"-json", "--json"}, description = "Output the ACL token in its JSON format.")
    boolean json;

    public LoginCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error logging in";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        String name = method;
        String kind = type.toUpperCase();
        if (name.isEmpty() || kind.isEmpty()) {
            JsonNode chosen = null;
            for (JsonNode stub : api.get("/v1/acl/auth-methods")) {
                if (name.isEmpty() ? stub.path("Default").asBoolean() : name.equals(Json.text(stub.get("Name")))) {
                    chosen = stub;
                }
            }
            if (chosen == null) {
                throw new UsageException(name.isEmpty()
                        ? "Must specify an auth method name, no default found"
                        : "Auth method " + name + " not found");
            }
            name = Json.text(chosen.get("Name"));
            kind = kind.isEmpty() ? Json.text(chosen.get("Type")) : kind;
        }
        if (!kind.equals("JWT")) {
            throw new UsageException("Unsupported authentication type \"" + kind + "\": this CLI logs in with JWT");
        }
        if (loginToken.isEmpty()) {
            throw new UsageException("You need to provide a login token using the -login-token flag");
        }
        ObjectNode body = NomadJson.mapper().createObjectNode().put("AuthMethodName", name)
                .put("LoginToken", loginToken);
        JsonNode token = api.post("/v1/acl/login", body);
        if (json) {
            ctx.out().println(Json.indent(token));
            return 0;
        }
        ctx.out().println("Successfully logged in via " + kind + " and " + name);
        ctx.out().println();
        AclOutput.token(ctx.out(), token);
        return 0;
    }
}
