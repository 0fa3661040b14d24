package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code caravan server members}: the gossip members of the servers' pool, with each region's leader. */
@Command(name = "members", description = "Display a list of the known servers and their status.")
public final class ServerMembersCommand extends HttpCommand {

    @Option(names = {"-detailed", "--detailed", "-verbose", "--verbose"},
            description = "Show every tag of each member instead of the summary columns.")
    boolean detailed;

    @Option(names = {"-json", "--json"}, description = "Output the members in their JSON format.")
    boolean json;

    public ServerMembersCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error querying servers";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        List<JsonNode> members = new ArrayList<>();
        api.get("/v1/agent/members").path("Members").forEach(members::add);
        members.sort(Comparator.comparing(m -> Json.text(m.get("Name"))));

        if (json) {
            ArrayNode array = NomadJson.mapper().createArrayNode().addAll(members);
            ctx.out().println(Json.indent(array));
        } else if (detailed) {
            detailedTable(members).print(ctx.out());
        } else {
            summaryTable(members, regionLeaders(api, members)).print(ctx.out());
        }
        return 0;
    }

    private static Table summaryTable(List<JsonNode> members, Map<String, String> leaders) {
        Table table = new Table("Name", "Address", "Port", "Status", "Leader", "Raft Version", "Build",
                "Datacenter", "Region");
        for (JsonNode m : members) {
            JsonNode tags = m.path("Tags");
            String region = Json.text(tags.get("region"));
            String leader = leaders.getOrDefault(region, "");
            boolean isLeader = !leader.isEmpty() && leader.equals(rpcAddress(m));
            table.row(Json.text(m.get("Name")), Json.text(m.get("Addr")), Json.text(m.get("Port")),
                    Json.text(m.get("Status")), String.valueOf(isLeader), Json.text(tags.get("raft_vsn")),
                    Json.text(tags.get("build")), Json.text(tags.get("dc")), region);
        }
        return table;
    }

    private static Table detailedTable(List<JsonNode> members) {
        Table table = new Table("Name", "Address", "Port", "Tags");
        for (JsonNode m : members) {
            JsonNode tags = m.path("Tags");
            List<String> pairs = new ArrayList<>();
            for (String key : Json.sortedFieldNames(tags)) {
                pairs.add(key + "=" + Json.text(tags.get(key)));
            }
            table.row(Json.text(m.get("Name")), Json.text(m.get("Addr")), Json.text(m.get("Port")),
                    String.join(",", pairs));
        }
        return table;
    }

    /**
     * The leader's RPC address per region, asked once per region present among the live members, as Nomad does
     * (a federated cluster lists every region's servers). A region whose leader cannot be read is reported on
     * stderr and shown without a leader; the member list itself is still correct.
     */
    private Map<String, String> regionLeaders(ApiClient api, List<JsonNode> members) {
        TreeSet<String> regions = new TreeSet<>();
        for (JsonNode m : members) {
            if (!"left".equals(Json.text(m.get("Status")))) {
                regions.add(Json.text(m.path("Tags").get("region")));
            }
        }
        Map<String, String> leaders = new TreeMap<>();
        for (String region : regions) {
            try {
                leaders.put(region, Json.text(api.get("/v1/status/leader", Map.of("region", region))));
            } catch (ApiException e) {
                ctx.err().println("Error determining leaders: Region \"" + region + "\": " + e.getMessage());
            }
        }
        return leaders;
    }

    /** {@code rpc_addr:port} from the tags (falling back to the gossip address), bracketed for IPv6 like Go. */
    private static String rpcAddress(JsonNode member) {
        JsonNode tags = member.path("Tags");
        String host = Json.text(tags.get("rpc_addr"));
        if (host.isEmpty()) {
            host = Json.text(member.get("Addr"));
        }
        String port = Json.text(tags.get("port"));
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
