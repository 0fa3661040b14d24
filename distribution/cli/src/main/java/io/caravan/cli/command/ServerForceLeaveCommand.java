package io.caravan.cli.command;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan server force-leave [-prune] <node>}: marks a failed server as "left" in the gossip pool. Prints
 * nothing on success, as Nomad; a refusal is one line and exit 1.
 */
@Command(name = "force-leave", description = {
        "Force a server into the 'left' state.",
        "Ejects a failed server that will not come back; a server that is in fact alive rejoins later."})
public final class ServerForceLeaveCommand extends HttpCommand {
    static final String PATH = "/v1/agent/force-leave";

    @Option(names = {"-prune", "--prune"},
            description = "Also drop the failed or left server from the member list at once.")
    boolean prune;

    @Parameters(arity = "0..*", paramLabel = "<node>", description = "Name of the server, as in 'server members'.")
    List<String> nodes = List.of();

    public ServerForceLeaveCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error force-leaving server " + (nodes.isEmpty() ? "" : nodes.get(0));
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (nodes.size() != 1) {
            throw new UsageException("This command takes one argument: <node>");
        }
        Map<String, String> query = new LinkedHashMap<>();
        query.put("node", nodes.get(0));
        if (prune) {
            query.put("prune", "true");
        }
        api.put(PATH, query, null);
        return 0;
    }
}
