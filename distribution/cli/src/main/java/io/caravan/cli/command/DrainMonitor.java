package io.caravan.cli.command;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.GoDuration;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;

/**
 * Follows a node drain as Nomad's {@code node drain -enable} does without {@code -detach}: allocations marked for
 * migration, draining and changing status, until the drain strategy is gone ("Drain complete for node ...") and
 * nothing runs any more on the node ("All allocations on node ... have stopped"). Paced and bounded by
 * {@link Watch}; lines are {@code <time>: message}, errors and warnings go to stderr.
 */
final class DrainMonitor {
    private final Context ctx;
    private final ApiClient api;
    private final String nodeId;
    private final boolean ignoreSystemJobs;

    DrainMonitor(Context ctx, ApiClient api, String nodeId, boolean ignoreSystemJobs) {
        this.ctx = ctx;
        this.api = api;
        this.nodeId = nodeId;
        this.ignoreSystemJobs = ignoreSystemJobs;
    }

    /**
     * 0 once the drain is over (or the watch timed out, which does not cancel the drain); 1 on read errors. While
     * the drain strategy is set, reads block on the node; after that, on the node's allocations.
     */
    int monitor() {
        Watch watch = new Watch(ctx);
        String path = "/v1/node/" + Json.pathSegment(nodeId);
        Map<String, JsonNode> seen = new HashMap<>();
        boolean nodeDone = false;
        boolean allocsDone = false;
        long nodeIndex = 0;
        long allocIndex = 0;
        while (true) {
            Instant asked = Instant.now();
            boolean news = false;
            try {
                if (!nodeDone) {
                    ApiClient.Response node = api.query(path, watch.blocking(nodeIndex), watch.requestTimeout());
                    news = node.index() > nodeIndex;
                    nodeIndex = Math.max(nodeIndex, node.index());
                    nodeDone = !Json.present(node.body().get("DrainStrategy"));
                    if (nodeDone) {
                        print("Drain complete for node " + nodeId);
                    } else if ("down".equals(Json.text(node.body().get("Status")))) {
                        ctx.err().println(watch.stamp("Node " + Nomad.quote(nodeId) + " down"));
                    }
                }
                ApiClient.Response allocs = api.query(path + "/allocations",
                        nodeDone ? watch.blocking(allocIndex) : Map.of(), watch.requestTimeout());
                news = nodeDone ? allocs.index() > allocIndex : news;
                allocIndex = Math.max(allocIndex, allocs.index());
                if (!allocsDone && allocations(allocs.body(), seen)) {
                    allocsDone = true;
                    print("All allocations on node " + Nomad.quote(nodeId) + " have stopped");
                }
            } catch (ApiException e) {
                ctx.err().println(watch.stamp("Error monitoring node: " + e.getMessage()));
                return 1;
            }
            if (nodeDone && allocsDone) {
                return 0;
            }
            if (watch.expired()) {
                ctx.err().println(watch.stamp("Stopped monitoring after " + GoDuration.format(watch.timeout())
                        + "; the drain goes on"));
                return 0;
            }
            watch.pace(asked, news);
        }
    }

    /** Reports what changed per allocation; true when none is pending or running (system jobs aside, if asked). */
    private boolean allocations(JsonNode allocs, Map<String, JsonNode> seen) {
        int running = 0;
        for (JsonNode a : allocs) {
            String id = Json.text(a.get("ID"));
            JsonNode before = seen.put(id, a);
            boolean migrating = migrating(a);
            String change = null;
            if (before == null) {
                // First sight: only later changes are news.
            } else if (!Json.text(before.get("ClientStatus")).equals(Json.text(a.get("ClientStatus")))) {
                change = "status " + Json.text(before.get("ClientStatus")) + " -> " + Json.text(a.get("ClientStatus"));
            } else if (migrating && !migrating(before)) {
                change = "marked for migration";
            } else if (migrating && !Json.text(before.get("DesiredStatus")).equals(Json.text(a.get("DesiredStatus")))
                    && "stop".equals(Json.text(a.get("DesiredStatus")))) {
                change = "draining";
            }
            if (change != null) {
                print("Alloc " + Nomad.quote(id) + " " + change);
            }
            if (ignoreSystemJobs && "system".equals(Json.text(a.path("Job").get("Type")))) {
                continue;
            }
            String status = Json.text(a.get("ClientStatus"));
            if (status.equals("pending") || status.equals("running")) {
                running++;
            }
        }
        return running == 0;
    }

    private static boolean migrating(JsonNode alloc) {
        return alloc.path("DesiredTransition").path("Migrate").asBoolean();
    }

    private void print(String message) {
        ctx.out().println(Nomad.time(Instant.now(), ctx.zone()) + ": " + message);
    }
}
