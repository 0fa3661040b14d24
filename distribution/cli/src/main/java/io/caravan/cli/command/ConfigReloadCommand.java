package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code caravan config reload}: {@code PUT /v1/agent/reload}, and what the agent says it changed; {@code -node-id}
 * and {@code -server-id} reload another agent through the servers, {@code -all} every server and client node.
 */
@Command(name = "reload", description = "Reload the agent's configuration files without restarting it.")
public final class ConfigReloadCommand extends HttpCommand {

    @Option(names = {"-json", "--json"}, description = "Output the reload report in its JSON format.")
    boolean json;

    @Option(names = {"-node-id", "--node-id"}, paramLabel = "ID", description = "Reload the client node with this ID.")
    String nodeId;

    @Option(names = {"-server-id", "--server-id"}, paramLabel = "NAME",
            description = "Reload the server with this name (as 'server members' lists it), or 'leader'.")
    String serverId;

    @Option(names = {"-all", "--all"}, description = "Reload every server and every client node, one line each.")
    boolean all;

    public ConfigReloadCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error reloading agent configuration";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        int targets = (nodeId != null ? 1 : 0) + (serverId != null ? 1 : 0) + (all ? 1 : 0);
        if (targets > 1) {
            throw new UsageException("Only one of -node-id, -server-id and -all may be given");
        }
        if (all && json) {
            throw new UsageException("-json reports one agent: it cannot be used with -all");
        }
        if (all) {
            return reloadAll(api);
        }
        JsonNode report = api.put("/v1/agent/reload", nodeId != null ? Map.of("node_id", nodeId)
                : serverId != null ? Map.of("server_id", serverId) : Map.of(), null);
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

    /** One agent {@code -all} reloads: how it is named on the line, and the query that reaches it. */
    private record Target(String label, String param, String id, String skipped) {}

    /**
     * Every alive server (gossip members) and every client node that is not down, each reloaded through the agent
     * the CLI talks to; an agent that is both a server and a client is reloaded once. Down nodes and failed servers
     * are listed as skipped, not as failures: there is nothing to reload.
     */
    private int reloadAll(ApiClient api) throws ApiException {
        List<Target> targets = new ArrayList<>();
        Set<String> serverNodeIds = new HashSet<>();
        for (JsonNode m : api.get("/v1/agent/members").path("Members")) {
            String name = m.path("Name").asText();
            String status = m.path("Status").asText();
            serverNodeIds.add(m.path("Tags").path("id").asText());
            targets.add(new Target("server " + name, "server_id", name,
                    status.equals("alive") ? null : "server is " + status));
        }
        for (JsonNode n : api.get("/v1/nodes")) {
            String id = n.path("ID").asText();
            if (serverNodeIds.contains(id)) {
                continue;   // the server's own client: reloaded with it
            }
            String status = n.path("Status").asText();
            targets.add(new Target("client " + id.substring(0, Math.min(8, id.length())) + " ("
                    + n.path("Name").asText() + ")", "node_id", id, status.equals("down") ? "node is down" : null));
        }
        int failed = 0;
        int tried = 0;
        for (Target t : targets) {
            if (t.skipped() != null) {
                ctx.out().println(t.label() + ": skipped, " + t.skipped());
                continue;
            }
            tried++;
            try {
                ctx.out().println(t.label() + ": " + summary(api.put("/v1/agent/reload", Map.of(t.param(), t.id()),
                        null)));
            } catch (ApiException e) {
                failed++;
                ctx.out().println(t.label() + ": failed: " + e.getMessage());
            }
        }
        if (failed > 0) {
            ctx.err().println("Error reloading agent configuration: " + failed + " of " + tried
                    + " agents failed");
            return 1;
        }
        return 0;
    }

    private static String summary(JsonNode report) {
        String took = String.format("reloaded in %.1f ms", report.path("ElapsedMs").asDouble());
        if (report.path("Changed").isEmpty()) {
            return took + ", no configuration changed";
        }
        return took + ", " + report.path("Applied").size() + " applied, " + report.path("RestartRequired").size()
                + " need a restart";
    }

    private void print(String heading, JsonNode keys) {
        if (keys.isEmpty()) {
            return;
        }
        ctx.out().println(heading + ":");
        keys.forEach(k -> ctx.out().println("  " + k.asText()));
    }
}
