package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.metrics.testing.Promtool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A dev agent with seed 002's {@code telemetry} block (collection_interval 1s, disable_hostname,
 * prometheus_metrics, publish_allocation_metrics, publish_node_metrics): Prometheus scrapes
 * {@code /v1/metrics?format=prometheus} and finds Nomad's names, promtool accepts the exposition, and the JSON form
 * keeps Nomad's shape; a running raw_exec task's {@code nomad.client.allocs.*} series come and go with it.
 */
class TelemetryE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static DevAgent dev;
    private static AgentProcess agent;

    @BeforeAll
    static void start() throws Exception {
        dev = DevAgent.start("caravan-telemetry-", """
                , "telemetry": {"collection_interval": "1s", "disable_hostname": true, "prometheus_metrics": true,
                  "publish_allocation_metrics": true, "publish_node_metrics": true}""");
        agent = dev.agent();
    }

    @AfterAll
    static void stop() throws Exception {
        if (dev != null) {
            dev.close();
        }
    }

    private static String scrape() {
        try {
            HttpResponse<String> r = agent.get("/v1/metrics?format=prometheus");
            assertEquals(200, r.statusCode(), r.body());
            assertEquals("text/plain; version=0.0.4; charset=utf-8",
                    r.headers().firstValue("Content-Type").orElse(""));
            return r.body();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void prometheusFindsNomadsMetricsAndPromtoolAcceptsThem() throws Exception {
        var registered = agent.putForm("/v1/jobs", """
                {"Job": {"ID": "metered", "Type": "batch", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "say",
                  "Tasks": [{"Name": "echo", "Driver": "raw_exec", "Config": {"command": "/bin/true"}}]}]}}""");
        assertEquals(200, registered.statusCode(), registered.body());
        agent.get("/v1/jobs");   // an API call as the anonymous caller
        List<String> expected = List.of("nomad_nomad_broker_total_ready ", "nomad_nomad_broker_total_unacked ",
                "nomad_nomad_blocked_evals_total_blocked ", "nomad_nomad_plan_queue_depth ",
                "nomad_nomad_heartbeat_active 1", "nomad_runtime_num_goroutines ", "nomad_runtime_alloc_bytes ",
                "nomad_raft_appliedIndex ", "nomad_raft_state_leader 1", "nomad_nomad_plan_apply_count ",
                "nomad_nomad_worker_invoke_scheduler_batch_count ",
                "nomad_client_allocated_memory{", "nomad_client_unallocated_cpu{", "nomad_client_host_memory_total{",
                "nomad_nomad_job_summary_complete{job=\"metered\",namespace=\"default\",task_group=\"say\"} 1");
        try {
            AgentProcess.await("the scrape has Nomad's metrics", WAIT, () -> expected.stream()
                    .allMatch(scrape()::contains));
        } catch (AssertionError e) {
            String text = scrape();
            throw new AssertionError("missing " + expected.stream().filter(m -> !text.contains(m)).toList()
                    + " in:\n" + text, e);
        }
        String text = scrape();
        // The API call counter with Nomad's labels (seed 001), and no host label (disable_hostname).
        assertTrue(Pattern.compile("(?m)^nomad_nomad_rpc_request\\{identity=\"anonymous\",method=\"[A-Za-z.]+\"\\} [1-9]")
                .matcher(text).find(), text);
        assertTrue(text.contains("# TYPE nomad_nomad_rpc_request counter"), text);
        assertFalse(text.contains("host=\""), "disable_hostname: no host label");
        Promtool.check(text);
    }

    @Test
    void jsonKeepsNomadsShape() {
        JsonNode metrics = agent.json("/v1/metrics");
        assertTrue(metrics.get("Timestamp").asText().endsWith(" +0000 UTC"), metrics.toString());
        for (String list : List.of("Gauges", "Counters", "Samples", "Points")) {
            assertTrue(metrics.get(list).isArray(), list + " in " + metrics);
        }
        JsonNode goroutines = null;
        for (JsonNode g : metrics.get("Gauges")) {
            if (g.get("Name").asText().equals("nomad.runtime.num_goroutines")) {
                goroutines = g;
            }
        }
        assertTrue(goroutines != null && goroutines.get("Value").asDouble() > 0 && goroutines.get("Labels").isObject(),
                metrics.toString());
    }

    @Test
    void aRunningTasksAllocationMetricsComeAndGoWithIt() throws Exception {
        var registered = agent.putForm("/v1/jobs", """
                {"Job": {"ID": "metered-svc", "Type": "service", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                  "Tasks": [{"Name": "loop", "Driver": "raw_exec", "Resources": {"CPU": 100, "MemoryMB": 64},
                    "Config": {"command": "/bin/sh", "args": ["-c", "while true; do sleep 1; done"]}}]}]}}""");
        assertEquals(200, registered.statusCode(), registered.body());
        try {
            AgentProcess.await("the task runs", WAIT, () -> {
                JsonNode allocs = agent.json("/v1/job/metered-svc/allocations");
                return allocs.size() == 1 && allocs.get(0).get("ClientStatus").asText().equals("running");
            });
            String allocId = agent.json("/v1/job/metered-svc/allocations").get(0).get("ID").asText();
            Pattern rss = Pattern.compile("(?m)^nomad_client_allocs_memory_rss\\{([^}]*alloc_id=\"" + allocId
                    + "\"[^}]*)\\} (\\S+)$");
            AgentProcess.await("the task's memory is sampled", WAIT, () -> rss.matcher(scrape()).find());
            String text = scrape();
            var m = rss.matcher(text);
            assertTrue(m.find(), text);
            assertEquals("alloc_id=\"" + allocId + "\",job=\"metered-svc\",namespace=\"default\",task=\"loop\","
                    + "task_group=\"g\"", m.group(1));
            assertTrue(Double.parseDouble(m.group(2)) > 0, "a shell has resident memory: " + m.group());
            assertTrue(text.contains("nomad_client_allocs_memory_allocated{" + m.group(1) + "} " + 64 * 1024 * 1024),
                    text);
            assertTrue(text.contains("nomad_client_allocs_cpu_allocated{" + m.group(1) + "} 100"), text);
            assertTrue(text.contains("nomad_client_allocs_cpu_total_percent{" + m.group(1) + "} "), text);
            Promtool.check(text);

            var stopped = agent.delete("/v1/job/metered-svc");
            assertEquals(200, stopped.statusCode(), stopped.body());
            AgentProcess.await("the stopped task's series are gone", WAIT,
                    () -> !scrape().contains("alloc_id=\"" + allocId + "\""));
        } finally {
            agent.delete("/v1/job/metered-svc");
        }
    }
}
