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

/** {@code caravan acl auth-method info NAME}: {@code GET /v1/acl/auth-method/NAME}. */
@Command(name = "info", description = "Show an ACL auth method.")
public final class AclAuthMethodInfoCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the method in its JSON format.")
    boolean json;

    @Parameters(arity = "0..*", paramLabel = "NAME", description = "The method's name.")
    List<String> args = List.of();

    public AclAuthMethodInfoCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error reading ACL auth method";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <acl_auth_method_name>");
        }
        print(ctx, api.get("/v1/acl/auth-method/" + Json.pathSegment(args.get(0))), json);
        return 0;
    }

    static void print(Context ctx, JsonNode method, boolean json) {
        if (json) {
            ctx.out().println(Json.indent(method));
        } else {
            AclOutput.authMethod(ctx.out(), method);
        }
    }
}
