package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code caravan operator raft list-peers [-stale]}: the servers of the Raft configuration, sorted by node name,
 * with the leader marked in the State column.
 */
@Command(name = "list-peers", description = "Display the current Raft peer configuration.")
public final class OperatorRaftListPeersCommand extends HttpCommand {
    static final String PATH = "/v1/operator/raft/configuration";

    @Option(names = {"-stale", "--stale"}, arity = "0..1", fallbackValue = "true",
            converter = GoBool.class, paramLabel = "<bool>",
            description = "Let any server answer, not only the leader (for a cluster without a leader).")
    boolean stale;

    public OperatorRaftListPeersCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Failed to retrieve raft configuration";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode reply = api.get(PATH, stale ? Map.of("stale", "true") : Map.of());
        List<JsonNode> servers = new ArrayList<>();
        reply.path("Servers").forEach(servers::add);
        servers.sort(Comparator.comparing(s -> Json.text(s.get("Node"))));

        Table table = new Table("Node", "ID", "Address", "State", "Voter", "RaftProtocol");
        for (JsonNode s : servers) {
            table.row(Json.text(s.get("Node")), Json.text(s.get("ID")), Json.text(s.get("Address")),
                    s.path("Leader").asBoolean() ? "leader" : "follower",
                    String.valueOf(s.path("Voter").asBoolean()), Json.text(s.get("RaftProtocol")));
        }
        table.print(ctx.out());
        return 0;
    }
}
