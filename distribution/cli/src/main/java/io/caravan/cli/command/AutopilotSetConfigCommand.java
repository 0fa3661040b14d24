package io.caravan.cli.command;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code caravan operator autopilot set-config [flags]}: reads the configuration, applies the flags given and writes
 * it back as a check-and-set on its modify index, as Nomad does. Exit 1 when a concurrent change won.
 */
@Command(name = "set-config", description = "Modify the autopilot configuration.")
public final class AutopilotSetConfigCommand extends HttpCommand {
    @Option(names = {"-cleanup-dead-servers", "--cleanup-dead-servers"}, arity = "0..1",
            fallbackValue = "true", converter = GoBool.class, paramLabel = "<bool>", description = "Remove failed servers from the Raft group when safe.")
    Boolean cleanupDeadServers;

    @Option(names = {"-max-trailing-logs", "--max-trailing-logs"}, paramLabel = "<n>",
            description = "Log entries a server may trail the leader by and still be healthy.")
    Long maxTrailingLogs;

    @Option(names = {"-min-quorum", "--min-quorum"}, paramLabel = "<n>",
            description = "Fewest voters the dead-server cleanup leaves.")
    Integer minQuorum;

    @Option(names = {"-last-contact-threshold", "--last-contact-threshold"}, paramLabel = "<duration>",
            description = "Longest time since the leader heard from a healthy server.")
    String lastContactThreshold;

    @Option(names = {"-server-stabilization-time", "--server-stabilization-time"}, paramLabel = "<duration>",
            description = "Stored; no effect in Caravan (servers join as voters).")
    String serverStabilizationTime;

    @Option(names = {"-enable-redundancy-zones", "--enable-redundancy-zones"}, arity = "0..1",
            fallbackValue = "true", converter = GoBool.class, paramLabel = "<bool>", description = "Nomad Enterprise; stored, no effect.")
    Boolean enableRedundancyZones;

    @Option(names = {"-disable-upgrade-migration", "--disable-upgrade-migration"}, arity = "0..1",
            fallbackValue = "true", converter = GoBool.class, paramLabel = "<bool>", description = "Nomad Enterprise; stored, no effect.")
    Boolean disableUpgradeMigration;

    @Option(names = {"-enable-custom-upgrades", "--enable-custom-upgrades"}, arity = "0..1",
            fallbackValue = "true", converter = GoBool.class, paramLabel = "<bool>", description = "Nomad Enterprise; stored, no effect.")
    Boolean enableCustomUpgrades;

    public AutopilotSetConfigCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error setting Autopilot configuration";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode current = api.get(AutopilotGetConfigCommand.PATH);
        if (!current.isObject()) {
            throw new ApiException("the agent sent no autopilot configuration");
        }
        ObjectNode config = ((ObjectNode) current).deepCopy();
        long index = config.path("ModifyIndex").asLong();
        if (cleanupDeadServers != null) {
            config.put("CleanupDeadServers", cleanupDeadServers);
        }
        if (maxTrailingLogs != null) {
            config.put("MaxTrailingLogs", maxTrailingLogs);
        }
        if (minQuorum != null) {
            config.put("MinQuorum", minQuorum);
        }
        if (lastContactThreshold != null) {
            config.put("LastContactThreshold", lastContactThreshold);
        }
        if (serverStabilizationTime != null) {
            config.put("ServerStabilizationTime", serverStabilizationTime);
        }
        if (enableRedundancyZones != null) {
            config.put("EnableRedundancyZones", enableRedundancyZones);
        }
        if (disableUpgradeMigration != null) {
            config.put("DisableUpgradeMigration", disableUpgradeMigration);
        }
        if (enableCustomUpgrades != null) {
            config.put("EnableCustomUpgrades", enableCustomUpgrades);
        }
        JsonNode updated = api.put(AutopilotGetConfigCommand.PATH, Map.of("cas", Long.toString(index)), config);
        if (updated.asBoolean()) {
            ctx.out().println("Configuration updated!");
            return 0;
        }
        ctx.out().println("Configuration could not be atomically updated, please try again");
        return 1;
    }
}
