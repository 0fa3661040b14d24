package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;

/** {@code caravan operator autopilot get-config}: the configuration as {@code key = value} lines, as Nomad prints it. */
@Command(name = "get-config", description = "Display the current autopilot configuration.")
public final class AutopilotGetConfigCommand extends HttpCommand {
    static final String PATH = "/v1/operator/autopilot/configuration";
    static final String[] FIELDS = {"CleanupDeadServers", "LastContactThreshold", "MaxTrailingLogs", "MinQuorum",
        "ServerStabilizationTime", "EnableRedundancyZones", "DisableUpgradeMigration", "EnableCustomUpgrades"};

    public AutopilotGetConfigCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error querying Autopilot configuration";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode config = api.get(PATH);
        for (String field : FIELDS) {
            ctx.out().println(field + " = " + config.path(field).asText());
        }
        return 0;
    }
}
