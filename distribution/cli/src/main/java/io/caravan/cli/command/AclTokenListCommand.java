package io.caravan.cli.command;

import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan acl token list}: {@code GET /v1/acl/tokens}, one line per token (never its secret). */
@Command(name = "list", description = "List ACL tokens.")
public final class AclTokenListCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the tokens in their JSON format.")
    boolean json;

    public AclTokenListCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error listing ACL tokens";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode tokens = api.get("/v1/acl/tokens");
        if (json) {
            ctx.out().println(Json.indent(tokens));
        } else {
            AclOutput.tokens(ctx.out(), tokens, Instant.now());
        }
        return 0;
    }
}
