package io.caravan.cli.command;

import java.util.LinkedHashMap;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code caravan monitor [-log-level L] [-json] [-node-id ID] [-server-id ID]}: Nomad's monitor, the agent's log as
 * it is written, until interrupted ({@code GET /v1/agent/monitor?plain=true}).
 */
@Command(name = "monitor", description = "Stream the logs of a running agent.")
public final class MonitorCommand extends HttpCommand {

    @Option(names = {"-log-level", "--log-level"}, paramLabel = "<level>",
            description = "The log level: trace, debug, info (the default), warn or error.")
    String level = "info";

    @Option(names = {"-json", "--json"}, description = "Output the log lines as JSON.")
    boolean json;

    @Option(names = {"-node-id", "--node-id"}, paramLabel = "<id>", description = "The client node to monitor.")
    String nodeId;

    @Option(names = {"-server-id", "--server-id"}, paramLabel = "<id>", description = "The server to monitor.")
    String serverId;

    public MonitorCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error starting monitor";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        Map<String, String> query = new LinkedHashMap<>();
        query.put("log_level", level);
        query.put("log_json", Boolean.toString(json));
        query.put("plain", "true");
        if (nodeId != null) {
            query.put("node_id", nodeId);
        }
        if (serverId != null) {
            query.put("server_id", serverId);
        }
        api.copy("/v1/agent/monitor", query, new TextSink(ctx.out()));
        return 0;
    }
}
