package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.hashicorp.nomad.apimodel.SearchResponse;
import com.hashicorp.nomad.javasdk.NomadApiClient;
import com.hashicorp.nomad.javasdk.NomadApiConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Operator tools on one dev agent: search by job and allocation prefix (also through the official Java SDK),
 * {@code caravan status <prefix>}, the agent monitor streaming a line logged after it connected, node pools
 * (apply, list, delete, in-use refusal), and a job in a pool without nodes staying blocked.
 */
class OperationsE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static DevAgent dev;
    private static AgentProcess agent;

    @BeforeAll
    static void start() throws Exception {
        dev = DevAgent.start("caravan-operations-");
        agent = dev.agent();
    }

    @AfterAll
    static void stop() throws Exception {
        if (dev != null) {
            try {
                for (String job : List.of("ops-web", "ops-gpu")) {
                    agent.delete("/v1/job/" + job + "?purge=true");
                }
            } finally {
                dev.close();
            }
        }
    }

    private static JsonNode send(String method, String path, String body, int expected) throws Exception {
        HttpResponse<String> r = agent.call(method, path, null, body);
        assertEquals(expected, r.statusCode(), method + " " + path + ": " + r.body());
        return r.body().isEmpty() ? null : AgentProcess.JSON.readTree(r.body());
    }

    private static void register(String id, String pool) throws Exception {
        send("PUT", "/v1/jobs", """
                {"Job": {"ID": "%s", "Datacenters": ["dc1"], "NodePool": "%s",
                  "TaskGroups": [{"Name": "web", "Count": 1,
                    "Tasks": [{"Name": "sleep", "Driver": "raw_exec",
                      "Config": {"command": "/bin/sleep", "args": ["600"]}}]}]}}
                """.formatted(id, pool), 200);
    }

    @Test
    void monitorSearchStatusAndNodePools() throws Exception {
        // The monitor, connected before anything below is logged.
        List<String> monitored = new CopyOnWriteArrayList<>();
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<InputStream> stream = http.send(HttpRequest.newBuilder(URI.create(agent.address()
                        + "/v1/agent/monitor?log_level=debug&plain=true")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, stream.statusCode());
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(stream.body(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                    monitored.add(line);
                }
            } catch (Exception e) {
                // The stream ends when the test closes it.
            }
        }, "monitor-reader");
        reader.setDaemon(true);
        reader.start();

        try {
            register("ops-web", "default");
            AgentProcess.await("the monitor shows the evaluation being processed", WAIT,
                    () -> monitored.stream().anyMatch(l -> l.contains("evaluation processed")
                            && l.contains("ops-web")));
        } finally {
            stream.body().close();
        }

        // Search by job prefix, and by allocation prefix once the job is placed.
        JsonNode jobs = send("POST", "/v1/search", "{\"Prefix\": \"ops-\", \"Context\": \"jobs\"}", 200);
        assertEquals("ops-web", jobs.path("Matches").path("jobs").get(0).asText(), jobs.toString());
        AgentProcess.await("ops-web is placed", WAIT, () -> agent.json("/v1/job/ops-web/allocations").size() == 1);
        String allocId = agent.json("/v1/job/ops-web/allocations").get(0).path("ID").asText();
        JsonNode allocs = send("POST", "/v1/search", "{\"Prefix\": \"" + allocId.substring(0, 7)
                + "\", \"Context\": \"all\"}", 200);
        assertTrue(allocs.path("Matches").path("allocs").toString().contains(allocId), allocs.toString());

        // The official SDK's SearchApi parses the answer.
        try (NomadApiClient nomad = new NomadApiClient(new NomadApiConfiguration.Builder()
                .setAddress(agent.address()).build())) {
            SearchResponse sdk = nomad.getSearchApi().prefixSearch("ops-w", "jobs").getValue();
            assertEquals(List.of("ops-web"), sdk.getMatches().get("jobs"));
            assertEquals(false, sdk.getTruncations().get("jobs"));
        }

        // caravan status <prefix>: the job's own status output.
        Path log = dev.dir().resolve("status.log");
        Process status = AgentProcess.run(log, "status", "-address=" + agent.address(), "ops-w");
        assertTrue(status.waitFor(60, TimeUnit.SECONDS), "caravan status finished");
        String out = AgentProcess.read(log);
        assertEquals(0, status.exitValue(), out);
        assertTrue(out.contains("ops-web") && out.contains("Allocations"), out);

        // Node pools: the built-ins, a new one, a job there that no node can run, and the in-use refusal.
        assertEquals(200, agent.get("/v1/node/pools").statusCode());
        send("PUT", "/v1/node/pools", "{\"Name\": \"gpu\", \"Description\": \"GPU nodes\"}", 200);
        List<String> pools = new ArrayList<>();
        agent.json("/v1/node/pools").forEach(p -> pools.add(p.path("Name").asText()));
        assertEquals(List.of("all", "default", "gpu"), pools);
        assertEquals(1, agent.json("/v1/node/pool/default/nodes").size(), "the dev node is in default");
        assertEquals(0, agent.json("/v1/node/pool/gpu/nodes").size());

        JsonNode unknown = AgentProcess.JSON.nullNode();
        HttpResponse<String> refused = agent.call("PUT", "/v1/jobs", null, """
                {"Job": {"ID": "ops-nowhere", "Datacenters": ["dc1"], "NodePool": "nowhere",
                  "TaskGroups": [{"Name": "g", "Tasks": [{"Name": "t", "Driver": "raw_exec",
                    "Config": {"command": "/bin/true"}}]}]}}""");
        assertEquals(400, refused.statusCode(), refused.body() + unknown);
        assertTrue(refused.body().contains("nonexistent node pool \"nowhere\""), refused.body());

        register("ops-gpu", "gpu");
        AgentProcess.await("ops-gpu's evaluation is blocked", WAIT, () -> {
            for (JsonNode e : agent.json("/v1/job/ops-gpu/evaluations")) {
                if (e.path("Status").asText().equals("blocked")) {
                    return true;
                }
            }
            return false;
        });
        assertEquals(0, agent.json("/v1/job/ops-gpu/allocations").size(), "never placed outside its pool");
        JsonNode placement = null;
        for (JsonNode e : agent.json("/v1/job/ops-gpu/evaluations")) {
            if (e.path("FailedTGAllocs").has("web")) {
                placement = e.path("FailedTGAllocs").path("web");
            }
        }
        assertTrue(placement != null && placement.path("NodesEvaluated").asInt() == 0, String.valueOf(placement));
        assertEquals("ops-gpu", agent.json("/v1/node/pool/gpu/jobs").get(0).path("ID").asText());

        HttpResponse<String> inUse = agent.call("DELETE", "/v1/node/pool/gpu", null, null);
        assertEquals(400, inUse.statusCode(), inUse.body());
        assertTrue(inUse.body().contains("non-terminal jobs"), inUse.body());
        send("DELETE", "/v1/job/ops-gpu?purge=true", null, 200);
        send("DELETE", "/v1/node/pool/gpu", null, 200);
        assertEquals(404, agent.get("/v1/node/pool/gpu").statusCode());
        HttpResponse<String> builtIn = agent.call("DELETE", "/v1/node/pool/default", null, null);
        assertEquals(400, builtIn.statusCode(), builtIn.body());

        // Host and schedulers answer in Nomad's shape.
        assertTrue(agent.json("/v1/agent/host").path("HostData").path("Disk").has("/"));
        JsonNode workers = agent.json("/v1/agent/schedulers").path("Schedulers");
        assertTrue(workers.size() > 0 && workers.get(0).path("Status").asText().equals("Started"),
                workers.toString());
        send("DELETE", "/v1/job/ops-web?purge=true", null, 200);
    }
}
