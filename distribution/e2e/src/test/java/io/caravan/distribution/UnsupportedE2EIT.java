package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Nothing is accepted silently: configuration keys Caravan does not act on are logged, listed by
 * {@code /v1/agent/self} and the reload, an enum typo stops the agent with its position, a reload for an unknown node
 * is a 404, and a job's ignored blocks come back as Nomad's {@code Warnings}, from HCL and JSON alike.
 */
class UnsupportedE2EIT {
    private static final String TEMPLATE_WARNING = "1 warning:\n\n* group \"g\" -> task \"t\" -> template: "
            + "vault_grace is not supported yet and was ignored (there is no Vault integration)";
    private static Path dir;
    private static AgentProcess agent;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("caravan-unsupported-");
        agent = AgentProcess.startDev(dir, ", \"data_dir\": \"" + dir.resolve("data") + "\", \"tls\": "
                + "{\"tls_prefer_server_cipher_suites\": true}, "
                + "\"server\": {\"job_max_source_size\": \"2M\"}");
    }

    @AfterAll
    static void stop() throws Exception {
        if (agent != null) {
            agent.close();
        }
        AgentProcess.deleteTree(dir);
    }

    private static List<String> keys(JsonNode unsupported) {
        List<String> out = new ArrayList<>();
        unsupported.forEach(u -> out.add(u.path("Key").asText()));
        return out;
    }

    @Test
    void unsupportedKeysAreLoggedAndListedBySelfAndTheReload() throws Exception {
        AgentProcess.await("a WARN for tls.tls_prefer_server_cipher_suites", Duration.ofSeconds(10),
                () -> agent.log().contains("configuration key tls.tls_prefer_server_cipher_suites is not supported "
                        + "yet and has no effect"));
        assertTrue(agent.log().contains("server.job_max_source_size is not supported yet"), agent.log());
        assertTrue(agent.log().contains("reason=\"the JDK's cipher-suite order applies"), agent.log());

        JsonNode self = agent.json("/v1/agent/self").path("config").path("Unsupported");
        assertEquals(List.of("tls.tls_prefer_server_cipher_suites", "server.job_max_source_size"),
                keys(self), self.toString());
        assertTrue(self.path(0).path("Position").asText().startsWith(agent.config + ":1:"), self.toString());

        HttpResponse<String> reload = agent.put("/v1/agent/reload");
        assertEquals(200, reload.statusCode(), reload.body());
        assertEquals(List.of("tls.tls_prefer_server_cipher_suites", "server.job_max_source_size"),
                keys(AgentProcess.JSON.readTree(reload.body()).path("Unsupported")), reload.body());
    }

    @Test
    void aReloadForAnUnknownNodeIsA404() throws Exception {
        HttpResponse<String> r = agent.put("/v1/agent/reload?node_id=no-such-node");
        assertEquals(404, r.statusCode(), r.body());
        assertEquals("Unknown node \"no-such-node\"", r.body().strip());
    }

    @Test
    void anEnumTypoStopsTheAgentWithItsPosition() throws Exception {
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"data_dir\": \"" + dir.resolve("bad-data") + "\",\n"
                + " \"server\": {\"client_introduction\": {\"enforcement\": \"bogus\"}}}");
        Path log = dir.resolve("bad.log");
        Process p = AgentProcess.run(log, "agent", "-dev", "-config", bad.toString());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the agent did not stop");
        assertEquals(1, p.exitValue());
        assertTrue(AgentProcess.read(log).contains(bad + ":2:52: invalid \"server.client_introduction.enforcement\" "
                + "\"bogus\": must be one of none, warn, strict"), AgentProcess.read(log));
    }

    @Test
    void aJsonJobAndAnHclJobBothWarnAboutTheirTemplatesVaultGrace() throws Exception {
        String json = """
                {"Job": {"ID": "tmpl-json", "Type": "batch", "TaskGroups": [{"Name": "g",
                  "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/true"},
                    "Templates": [{"EmbeddedTmpl": "x", "DestPath": "local/x", "VaultGrace": 15000000000}]}]}]}}
                """;
        HttpResponse<String> registered = agent.putForm("/v1/jobs", json);
        assertEquals(200, registered.statusCode(), registered.body());
        assertEquals(TEMPLATE_WARNING, AgentProcess.JSON.readTree(registered.body()).path("Warnings").asText());

        HttpResponse<String> parsed = agent.putForm("/v1/jobs/parse", AgentProcess.JSON.writeValueAsString(
                AgentProcess.JSON.createObjectNode().put("JobHCL", """
                        job "tmpl-hcl" {
                          type = "batch"
                          group "g" {
                            task "t" {
                              driver = "raw_exec"
                              config { command = "/bin/true" }
                              template {
                                data        = "x"
                                destination = "local/x"
                                vault_grace = "15s"
                              }
                            }
                          }
                        }
                        """)));
        assertEquals(200, parsed.statusCode(), parsed.body());
        ObjectNode request = AgentProcess.JSON.createObjectNode();
        request.set("Job", AgentProcess.JSON.readTree(parsed.body()));
        HttpResponse<String> plan = agent.putForm("/v1/job/tmpl-hcl/plan", request.toString());
        assertEquals(200, plan.statusCode(), plan.body());
        assertEquals(TEMPLATE_WARNING, AgentProcess.JSON.readTree(plan.body()).path("Warnings").asText());
        HttpResponse<String> hcl = agent.putForm("/v1/job/tmpl-hcl", request.toString());
        assertEquals(200, hcl.statusCode(), hcl.body());
        assertEquals(TEMPLATE_WARNING, AgentProcess.JSON.readTree(hcl.body()).path("Warnings").asText());
    }
}
