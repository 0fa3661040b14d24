package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * {@code operator snapshot} between two dev agents, as real processes: a job and a namespace saved from one (the file
 * inspected offline) are restored into a fresh one, replacing what it had; a corrupt file is refused with a 400 that
 * says why, and changes nothing. Also autopilot's endpoints on a single server.
 */
class SnapshotE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** A job that can never be placed (its constraint matches no node), so no task process is left behind. */
    private static String job(String id) {
        return """
                {"Job": {"ID": "%s", "Type": "batch", "Datacenters": ["*"],
                  "Constraints": [{"LTarget": "${attr.kernel.name}", "RTarget": "no-such-kernel", "Operand": "="}],
                  "TaskGroups": [{"Name": "g", "Tasks": [{"Name": "t", "Driver": "raw_exec",
                    "Config": {"command": "/bin/true"}}]}]}}
                """.formatted(id);
    }

    private static String cli(Path dir, String name, String... args) throws Exception {
        Path log = dir.resolve(name + ".log");
        Process p = AgentProcess.run(log, args);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), name + " finished");
        String out = Files.readString(log);
        assertEquals(0, p.exitValue(), name + ": " + out);
        return out;
    }

    private static HttpResponse<String> putBytes(AgentProcess agent, byte[] body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(agent.address() + "/v1/operator/snapshot"))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(body)).timeout(WAIT).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aSnapshotSavedFromOneAgentRestoresIntoAFreshOne() throws Exception {
        try (DevAgent source = DevAgent.start("caravan-snap-a-"); DevAgent target = DevAgent.start("caravan-snap-b-")) {
            AgentProcess a = source.agent();
            AgentProcess b = target.agent();
            assertEquals(200, a.putForm("/v1/jobs", job("saved-job")).statusCode());
            assertEquals(200, a.putForm("/v1/namespace/team-a", "{\"Name\": \"team-a\"}").statusCode());
            assertEquals(200, b.putForm("/v1/jobs", job("only-on-target")).statusCode());

            // The raw endpoint: the archive, with its index in X-Nomad-Index.
            HttpResponse<byte[]> saved = HTTP.send(HttpRequest.newBuilder(
                    URI.create(a.address() + "/v1/operator/snapshot")).timeout(WAIT).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, saved.statusCode());
            assertTrue(Long.parseLong(saved.headers().firstValue("X-Nomad-Index").orElse("0")) > 0);
            assertTrue(new String(saved.body(), 0, 18).startsWith("caravan-snapshot 1"));

            Path file = source.dir().resolve("backup.snap");
            assertTrue(cli(source.dir(), "save", "operator", "snapshot", "save", "-address", a.address(),
                    file.toString()).contains("State file written to"));
            String inspect = cli(source.dir(), "inspect", "operator", "snapshot", "inspect", file.toString());
            assertTrue(inspect.matches("(?s).*Index\\s+= [1-9]\\d*.*"), inspect);
            assertTrue(inspect.matches("(?s).*\\njobs\\s+1\\n.*"), inspect);
            assertTrue(inspect.matches("(?s).*\\nnamespaces\\s+[12]\\n.*"), inspect);

            // A corrupt copy: refused before anything is written, saying why.
            byte[] corrupt = Files.readAllBytes(file);
            corrupt[corrupt.length - 20] ^= 0x20;
            HttpResponse<String> refused = putBytes(b, corrupt);
            assertEquals(400, refused.statusCode(), refused.body());
            assertTrue(refused.body().contains("checksum mismatch"), refused.body());
            assertEquals(200, b.get("/v1/job/only-on-target").statusCode());
            assertEquals(404, b.get("/v1/job/saved-job").statusCode());
            HttpResponse<String> notOne = putBytes(b, "{\"not\": \"a snapshot\"}".getBytes());
            assertEquals(400, notOne.statusCode());
            assertTrue(notOne.body().contains("not a Caravan snapshot"), notOne.body());

            assertTrue(cli(target.dir(), "restore", "operator", "snapshot", "restore", "-address", b.address(),
                    file.toString()).contains("Snapshot Restored"));
            assertEquals(200, b.get("/v1/job/saved-job").statusCode());
            assertEquals(404, b.get("/v1/job/only-on-target").statusCode(), "the whole state is replaced");
            assertEquals(200, b.get("/v1/namespace/team-a").statusCode());
            // ...and the restored server takes writes on.
            assertEquals(200, b.putForm("/v1/jobs", job("after-restore")).statusCode());
            assertEquals(200, b.get("/v1/job/after-restore").statusCode());
        }
    }

    @Test
    void autopilotOnASingleServer() throws Exception {
        try (DevAgent dev = DevAgent.start("caravan-autopilot-")) {
            AgentProcess agent = dev.agent();
            JsonNode config = agent.json("/v1/operator/autopilot/configuration");
            assertTrue(config.get("CleanupDeadServers").asBoolean(), config.toString());
            assertEquals("200ms", config.get("LastContactThreshold").asText());
            assertEquals(250, config.get("MaxTrailingLogs").asInt());

            String out = cli(dev.dir(), "set", "operator", "autopilot", "set-config", "-address", agent.address(),
                    "-max-trailing-logs", "500", "-cleanup-dead-servers=false");
            assertTrue(out.contains("Configuration updated!"), out);
            config = agent.json("/v1/operator/autopilot/configuration");
            assertEquals(500, config.get("MaxTrailingLogs").asInt());
            assertTrue(!config.get("CleanupDeadServers").asBoolean());
            long index = config.get("ModifyIndex").asLong();
            HttpResponse<String> stale = agent.call("PUT", "/v1/operator/autopilot/configuration?cas=" + (index - 1),
                    null, config.toString());
            assertEquals("false", stale.body().trim(), "a check-and-set against an old index loses");
            HttpResponse<String> bad = agent.call("PUT", "/v1/operator/autopilot/configuration", null,
                    "{\"LastContactThreshold\": \"soon\"}");
            assertEquals(400, bad.statusCode(), bad.body());
            assertTrue(bad.body().contains("LastContactThreshold"), bad.body());

            AgentProcess.await("the single server is healthy", WAIT, () -> {
                try {
                    return agent.get("/v1/operator/autopilot/health").statusCode() == 200;
                } catch (Exception e) {
                    return false;
                }
            });
            JsonNode health = agent.json("/v1/operator/autopilot/health");
            assertTrue(health.get("Healthy").asBoolean(), health.toString());
            assertEquals(0, health.get("FailureTolerance").asInt());
            assertEquals(1, health.get("Servers").size());
            assertEquals("alive", health.get("Servers").get(0).get("SerfStatus").asText(), health.toString());
            assertTrue(cli(dev.dir(), "health", "operator", "autopilot", "health", "-address", agent.address())
                    .contains("Healthy: true"));
        }
    }
}
