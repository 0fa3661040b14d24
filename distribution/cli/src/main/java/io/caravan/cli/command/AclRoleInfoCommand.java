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

/** {@code caravan acl role info [-by-name] ID|NAME}: {@code GET /v1/acl/role/ID} or {@code /v1/acl/role/name/NAME}. */
@Command(name = "info", description = "Show an ACL role.")
public final class AclRoleInfoCommand extends HttpCommand {

    @Option(names = {"-by-name", "--by-name"}, description = "The argument is the role's name, not its ID.")
    boolean byName;

    @Option(names = {"-json", "--json"}, description = "Output the role in its JSON format.")
    boolean json;

    @Parameters(arity = "0..*", paramLabel = "ID", description = "The role's ID (its name with -by-name).")
    List<String> args = List.of();

    public AclRoleInfoCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error reading ACL role";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 1) {
            throw new UsageException("This command takes one argument: <acl_role_id>");
        }
        String path = (byName ? "/v1/acl/role/name/" : "/v1/acl/role/") + Json.pathSegment(args.get(0));
        print(ctx, api.get(path), json);
        return 0;
    }

    /** A role as {@code key = value} lines, or as JSON. */
    static void print(Context ctx, JsonNode role, boolean json) {
        if (json) {
            ctx.out().println(Json.indent(role));
        } else {
            AclOutput.role(ctx.out(), role);
        }
    }
}
