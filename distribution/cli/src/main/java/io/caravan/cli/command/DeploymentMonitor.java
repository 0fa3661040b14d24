package io.caravan.cli.command;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.GoDuration;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;

/**
 * Follows a deployment until it ends, as Nomad's {@code deployment status -monitor} and {@code job run} do: the
 * deployment block (status, description, per-group Desired/Canaries/Placed/Healthy/Unhealthy/Progress Deadline, and
 * the allocations with {@code -verbose}) after every change. On a terminal it is redrawn in place under a
 * "Deployment ... in progress..." line, ending with "✓ Deployment ... successful" or "! Deployment ... failed";
 * otherwise each change is printed as a new timestamped block. A failed deployment that auto-reverts is followed by
 * the rollback's deployment, as Nomad does.
 *
 * <p>Reads are blocking queries paced and bounded by {@link Watch} ({@code CARAVAN_MONITOR_TIMEOUT}).
 */
final class DeploymentMonitor {
    static final String SUCCESSFUL = "successful";
    private static final Set<String> TERMINAL = Set.of(SUCCESSFUL, "failed", "cancelled", "blocked");
    /** How long Nomad waits for an auto-revert's deployment to appear. */
    private static final Duration ROLLBACK_WAIT = Duration.ofSeconds(1);
    private static final String[] SPINNER = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
    /** ANSI: to the start of the line {@code n} lines up, then clear to the end of the screen. */
    private static final String UP = "\u001b[%dF\u001b[J";

    private final Context ctx;
    private final ApiClient api;
    private final boolean verbose;
    private final boolean tty;
    private final String margin;
    private final Watch watch;

    private int drawnLines;
    private int frame;

    /**
     * @param tty    redraw in place (standard output is a terminal)
     * @param margin what each block line starts with: four spaces under {@code job run}'s monitor lines
     */
    DeploymentMonitor(Context ctx, ApiClient api, boolean verbose, boolean tty, String margin) {
        this.ctx = ctx;
        this.api = api;
        this.verbose = verbose;
        this.tty = tty;
        this.margin = margin;
        this.watch = new Watch(ctx);
    }

    /** Whether this process's standard output is a terminal (Nomad's isStdoutTerminal). */
    static boolean stdoutIsTerminal() {
        return System.console() != null;
    }

    /** Follows {@code deploymentId}; returns its last status, or an empty string when it could not be followed. */
    String monitor(String deploymentId) {
        long index = 0;
        List<String> shown = List.of();
        while (true) {
            Instant asked = Instant.now();
            JsonNode d;
            long answered;
            try {
                ApiClient.Response response = api.query("/v1/deployment/" + Json.pathSegment(deploymentId),
                        watch.blocking(index), watch.requestTimeout());
                d = response.body();
                answered = response.index();
            } catch (ApiException e) {
                endInPlace();
                ctx.err().println(watch.stamp("Error fetching deployment: " + e.getMessage()));
                return "";
            }
            String status = Json.text(d.get("Status"));
            List<String> block = block(deploymentId, d);
            boolean done = TERMINAL.contains(status);
            if (!block.equals(shown) || done) {
                show(deploymentId, block, done ? status : null);
                shown = block;
            }
            if (done) {
                if ("failed".equals(status) && Deployments.autoReverts(d)) {
                    followRollback(deploymentId, d);
                }
                return status;
            }
            if (watch.expired()) {
                endInPlace();
                ctx.err().println(watch.stamp("Timed out after " + GoDuration.format(watch.timeout())
                        + " waiting for deployment " + Nomad.quote(id(deploymentId)) + " (status "
                        + Nomad.quote(status) + "); it carries on, see 'caravan deployment status "
                        + deploymentId + "'"));
                return "";
            }
            watch.pace(asked, answered > index);
            index = Math.max(index, answered);
        }
    }

    /** Nomad waits a second for the revert's deployment, then follows it unless there is none. */
    private void followRollback(String failedId, JsonNode failed) {
        watch.sleep(ROLLBACK_WAIT);
        JsonNode rollback;
        try {
            rollback = api.get("/v1/job/" + Json.pathSegment(Json.text(failed.get("JobID"))) + "/deployment");
        } catch (ApiException e) {
            ctx.out().println();
            ctx.err().println(watch.stamp("Error fetching deployment of previous job version: " + e.getMessage()));
            return;
        }
        String rollbackId = Json.text(rollback.get("ID"));
        if (rollbackId.isEmpty() || rollbackId.equals(failedId)) {
            return;
        }
        ctx.out().println();
        drawnLines = 0;
        monitor(rollbackId);
    }

    /** The timestamped deployment block, and with {@code -verbose} its allocations. */
    private List<String> block(String deploymentId, JsonNode d) {
        List<String> lines = new ArrayList<>(Deployments.details(d, verbose, true, ctx.zone()));
        if (verbose) {
            lines.add("");
            lines.add("Allocations");
            try {
                JsonNode allocs = api.get("/v1/deployment/allocations/" + Json.pathSegment(deploymentId));
                lines.addAll(AllocTable.lines(allocs, true, true, ctx.zone()));
            } catch (ApiException e) {
                lines.add("Error fetching allocations: " + e.getMessage());
            }
        }
        return lines;
    }

    /** Prints a block; {@code endStatus} non-null: the deployment ended with it. */
    private void show(String deploymentId, List<String> block, String endStatus) {
        String time = Nomad.time(Instant.now(), ctx.zone());
        if (!tty) {
            ctx.out().println();
            ctx.out().println(margin + time);
            block.forEach(line -> ctx.out().println(line.isEmpty() ? "" : margin + line));
            ctx.out().flush();
            return;
        }
        List<String> frameLines = new ArrayList<>();
        frameLines.add("  " + headline(deploymentId, endStatus));
        frameLines.add("");
        frameLines.add("    " + time);
        block.forEach(line -> frameLines.add(line.isEmpty() ? "" : "    " + line));
        frameLines.add("");
        StringBuilder out = new StringBuilder();
        if (drawnLines > 0) {
            out.append(String.format(UP, drawnLines));
        }
        frameLines.forEach(line -> out.append(line).append('\n'));
        ctx.out().print(out);
        ctx.out().flush();
        drawnLines = endStatus == null ? frameLines.size() : 0;
    }

    /** Nomad's spinner line while running, its ✓ or ! line at the end. */
    private String headline(String deploymentId, String endStatus) {
        String quoted = Nomad.quote(id(deploymentId));
        if (endStatus == null) {
            return SPINNER[frame++ % SPINNER.length] + " Deployment " + quoted + " in progress...";
        }
        return (SUCCESSFUL.equals(endStatus) ? "✓" : "!") + " Deployment " + quoted + " " + endStatus;
    }

    /** The in-place frame stays as last drawn; what follows starts below it. */
    private void endInPlace() {
        drawnLines = 0;
    }

    private String id(String id) {
        return Nomad.id(id, verbose);
    }
}
