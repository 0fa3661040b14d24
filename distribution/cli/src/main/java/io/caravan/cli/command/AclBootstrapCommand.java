package io.caravan.cli.command;

import java.io.IOException;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
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
 * {@code caravan acl bootstrap [PATH]}: {@code POST /v1/acl/bootstrap} and the initial management token. PATH holds
 * an operator-chosen secret ({@code -} reads it from standard input); without one the server generates it.
 */
@Command(name = "bootstrap", description = {"Bootstrap the ACL system and print the initial management token.",
        "PATH holds an operator-chosen secret ('-': standard input); without it the server generates one."})
public final class AclBootstrapCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the token in its JSON format.")
    boolean json;

    @Parameters(arity = "0..*", paramLabel = "PATH", description = "File holding the bootstrap secret, or '-'.")
    List<String> paths = List.of();

    public AclBootstrapCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error bootstrapping";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (paths.size() > 1) {
            throw new UsageException("This command takes up to one argument");
        }
        String secret = "";
        if (!paths.isEmpty() && !paths.get(0).isEmpty()) {
            try {
                secret = InputFile.read(ctx, paths.get(0));
            } catch (IOException e) {
                ctx.err().println("Error reading provided token: " + InputFile.reason(e));
                return 1;
            }
        }
        // A secret piped in by "echo" ends with a newline that is no part of it.
        secret = secret.endsWith("\n") ? secret.substring(0, secret.length() - 1) : secret;
        ObjectNode request = NomadJson.mapper().createObjectNode().put("BootstrapSecret", secret);
        JsonNode token = api.post("/v1/acl/bootstrap", request);
        if (json) {
            ctx.out().println(Json.indent(token));
        } else {
            AclOutput.token(ctx.out(), token);
        }
        return 0;
    }
}
