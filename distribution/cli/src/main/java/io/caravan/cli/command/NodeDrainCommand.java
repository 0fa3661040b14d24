package io.caravan.cli.command;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.GoDuration;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan node drain -enable|-disable [flags] ID|-self}: sets or clears a node's drain strategy
 * ({@code PUT /v1/node/:id/drain}). Enabling without {@code -detach} then follows the drain ({@link DrainMonitor}).
 * A node named by a prefix is confirmed first unless {@code -yes}, as Nomad does.
 */
@Command(name = "drain", description = "Toggle drain mode on a node: migrate its allocations elsewhere.")
public final class NodeDrainCommand extends HttpCommand {
    static final Duration DEFAULT_DEADLINE = Duration.ofHours(1);

    @Parameters(arity = "0..1", paramLabel = "ID", description = "A node ID or a unique prefix of one.")
    String id;

    @Option(names = {"-enable", "--enable"}, description = "Enable drain mode.")
    boolean enable;

    @Option(names = {"-disable", "--disable"}, description = "Disable drain mode.")
    boolean disable;

    @Option(names = {"-deadline", "--deadline"}, paramLabel = "<duration>",
            description = "Force-stop the allocations left after this long (default 1h).")
    String deadline;

    @Option(names = {"-force", "--force"}, description = "Stop every allocation at once (no deadline wait).")
    boolean force;

    @Option(names = {"-no-deadline", "--no-deadline"}, description = "Never force-stop allocations.")
    boolean noDeadline;

    @Option(names = {"-ignore-system", "--ignore-system"}, description = "Leave system jobs' allocations running.")
    boolean ignoreSystem;

    @Option(names = {"-keep-ineligible", "--keep-ineligible"},
            description = "Keep the node ineligible when the drain is disabled or completes.")
    boolean keepIneligible;

    @Option(names = {"-self", "--self"}, description = "The node of the agent the CLI talks to.")
    boolean self;

    @Option(names = {"-yes", "--yes"}, description = "Do not ask for confirmation.")
    boolean yes;

    @Option(names = {"-detach", "--detach"}, description = "Return at once instead of following the drain.")
    boolean detach;

    @Option(names = {"-m", "--m"}, paramLabel = "<message>", description = "A message stored with the drain.")
    String message;

    @Option(names = {"-meta", "--meta"}, paramLabel = "<key=value>", description = "Drain metadata (repeatable).")
    List<String> meta = new ArrayList<>();

    public NodeDrainCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error updating drain specification";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        Duration drainDeadline = validate();
        String nodeId = Lookup.node(api, id, self);
        JsonNode node = api.get("/v1/node/" + Json.pathSegment(nodeId));
        if (!self && !nodeId.equals(id) && !yes) {
            OptionalInt declined = Confirmation.declined(ctx, "Are you sure you want to "
                    + (enable ? "enable" : "disable") + " drain mode for node " + Nomad.quote(nodeId) + "? [y/N]",
                    "Canceling drain toggle");
            if (declined.isPresent()) {
                return declined.getAsInt();
            }
        }
        ObjectNode request = NomadJson.mapper().createObjectNode().put("NodeID", nodeId);
        if (enable) {
            request.putObject("DrainSpec").put("Deadline", drainDeadline.toNanos())
                    .put("IgnoreSystemJobs", ignoreSystem);
        } else {
            request.putNull("DrainSpec");
        }
        request.put("MarkEligible", !keepIneligible);
        request.set("Meta", drainMeta(node));
        api.put("/v1/node/" + Json.pathSegment(nodeId) + "/drain", request);

        if (!enable || detach) {
            ctx.out().println("Node " + Nomad.quote(nodeId) + " drain strategy " + (enable ? "set" : "unset"));
            return 0;
        }
        String now = Nomad.time(Instant.now(), ctx.zone());
        ctx.out().println(now + ": Ctrl-C to stop monitoring: will not cancel the node drain");
        ctx.out().println(now + ": Node " + Nomad.quote(nodeId) + " drain strategy set");
        return new DrainMonitor(ctx, api, nodeId, ignoreSystem).monitor();
    }

    /** Nomad's flag rules; the drain deadline they select (negative: force, zero: none). */
    private Duration validate() throws UsageException {
        if (enable == disable) {
            throw new UsageException("Either the '-enable' or '-disable' flag must be set");
        }
        if (self == (id != null)) {
            throw new UsageException("Node ID must be specified if -self isn't being used");
        }
        if (disable && (deadline != null || force || noDeadline || ignoreSystem)) {
            throw new UsageException("-disable can't be combined with flags configuring drain strategy");
        }
        if (deadline != null && (force || noDeadline)) {
            throw new UsageException("-deadline can't be combined with -force or -no-deadline");
        }
        if (force && noDeadline) {
            throw new UsageException("-force and -no-deadline are mutually exclusive");
        }
        if (force) {
            return Duration.ofSeconds(-1);
        }
        if (noDeadline) {
            return Duration.ZERO;
        }
        if (deadline == null) {
            return DEFAULT_DEADLINE;
        }
        Duration d;
        try {
            d = GoDuration.parse(deadline);
        } catch (IllegalArgumentException e) {
            throw new UsageException("Failed to parse deadline \"" + deadline + "\": " + e.getMessage());
        }
        if (d.isNegative() || d.isZero()) {
            throw new UsageException("A positive drain duration must be given");
        }
        return d;
    }

    /** The drain's metadata: a cancel keeps the last drain's, plus {@code -m} and {@code -meta}. */
    private ObjectNode drainMeta(JsonNode node) {
        ObjectNode result = NomadJson.mapper().createObjectNode();
        JsonNode last = node.path("LastDrain").path("Meta");
        if (disable && last.isObject()) {
            result.setAll((ObjectNode) last);
        }
        if (message != null && !message.isEmpty()) {
            result.put(enable ? "message" : "cancel_message", message);
        }
        for (String pair : meta) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            result.put(eq < 0 ? pair : pair.substring(0, eq), eq < 0 ? "" : pair.substring(eq + 1));
        }
        return result;
    }
}
