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

/**
 * {@code caravan node config -servers | -update-servers <addr>...}: reads or replaces the server list of the
 * client agent the CLI talks to. Exactly one of the two flags.
 */
@Command(name = "config", description = {
        "View or modify a client agent's configuration.",
        "Works against client agents only; the flags below say what each expects."})
public final class NodeConfigCommand extends HttpCommand {
    static final String PATH = "/v1/agent/servers";

    @Option(names = {"-servers", "--servers"},
            description = "Print the servers the client knows, one per line. Clients reach servers over RPC, "
                    + "not gossip, and re-register with them periodically.")
    boolean servers;

    @Option(names = {"-update-servers", "--update-servers"},
            description = "Replace the client's server list with the addresses given as arguments, all at once: "
                    + "list every server the client should use (port 4647 when none is given).")
    boolean updateServers;

    @Parameters(arity = "0..*", paramLabel = "<addr>", description = "Server addresses, for -update-servers.")
    List<String> addresses = List.of();

    public NodeConfigCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return updateServers ? "Error updating server list" : "Error querying server list";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (servers == updateServers) {
            throw new UsageException("Exactly one of the '-servers' or '-update-servers' flags must be set");
        }
        if (updateServers) {
            if (addresses.isEmpty()) {
                throw new UsageException("One or more server addresses must be given with -update-servers");
            }
            api.put(PATH, "address", addresses);
            ctx.out().println("Updated server list");
            return 0;
        }
        if (!addresses.isEmpty()) {
            throw new UsageException("-servers takes no arguments");
        }
        JsonNode list = api.get(PATH);
        for (JsonNode server : list) {
            ctx.out().println(Json.text(server));
        }
        return 0;
    }
}
