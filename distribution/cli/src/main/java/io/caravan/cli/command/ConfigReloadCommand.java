package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan config reload}: {@code PUT /v1/agent/reload}, and what the agent says it changed. */
@Command(name = "reload", description = "Reload the agent's configuration files without restarting it.")
public final class ConfigReloadCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the reload report in its JSON format.")
    boolean json;

    public ConfigReloadCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error reloading agent configuration";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode report = api.put("/v1/agent/reload");
        if (json) {
            ctx.out().println(Json.indent(report));
            return 0;
        }
        ctx.out().printf("Configuration reloaded in %.1f ms%n", report.path("ElapsedMs").asDouble());
        print("Applied", report.path("Applied"));
        print("Needs a restart (not applied)", report.path("RestartRequired"));
        if (report.path("Changed").isEmpty()) {
            ctx.out().println("No configuration changed.");
        }
        JsonNode unsupported = report.path("Unsupported");
        if (!unsupported.isEmpty()) {
            ctx.out().println("Not supported yet (set, but without effect):");
            unsupported.forEach(u -> ctx.out().println("  " + u.path("Key").asText() + " ("
                    + u.path("Position").asText() + "): " + u.path("Reason").asText()));
        }
        return 0;
    }

    private void print(String heading, JsonNode keys) {
        if (keys.isEmpty()) {
            return;
        }
        ctx.out().println(heading + ":");
        keys.forEach(k -> ctx.out().println("  " + k.asText()));
    }
}
