package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Native service discovery through the real agent and CLI: a {@code python3 -m http.server} raw_exec task on a
 * dynamic port registers its service with an http check; {@code service info} shows the address, which answers;
 * the check turns passing; a deployment with {@code health_check = "checks"} succeeds once it does, and one whose
 * check never passes fails at its healthy deadline.
 */
class ServicesE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final long SECOND = 1_000_000_000L;
    private static DevAgent dev;
    private static Path dir;
    private static AgentProcess agent;

    @BeforeAll
    static void start() throws Exception {
        dev = DevAgent.start("caravan-services-");
        agent = dev.agent();
        dir = dev.dir();
    }

    @AfterAll
    static void stop() throws Exception {
        if (dev != null) {
            dev.close();
        }
    }

    private static String cli(String name, String... args) throws Exception {
        Path log = dir.resolve(name + ".log");
        String[] full = new String[args.length + 1];
        full[0] = args[0];
        full[1] = args[1];
        full[2] = "-address=" + agent.address();
        System.arraycopy(args, 2, full, 3, args.length - 2);
        Process p = AgentProcess.runIn(dir, log, full);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), name + " finishes");
        String out = AgentProcess.read(log);
        assertEquals(0, p.exitValue(), name + ": " + out);
        return out;
    }

    /** A python web server registered as {@code service}, with an http check on {@code checkPath}. */
    private static void register(String id, String service, String checkPath, long healthyDeadlineSeconds)
            throws Exception {
        var response = agent.putForm("/v1/jobs", """
                {"Job": {"ID": "%s", "Datacenters": ["dc1"],
                  "TaskGroups": [{"Name": "web", "Count": 1,
                    "Update": {"HealthCheck": "checks", "MinHealthyTime": %d, "HealthyDeadline": %d,
                      "ProgressDeadline": %d, "MaxParallel": 1},
                    "Networks": [{"DynamicPorts": [{"Label": "http"}]}],
                    "Services": [{"Name": "%s", "PortLabel": "http", "Provider": "nomad", "Tags": ["py"],
                      "Checks": [{"Name": "alive", "Type": "http", "Path": "%s", "Interval": %d, "Timeout": %d}]}],
                    "Tasks": [{"Name": "server", "Driver": "raw_exec",
                      "Config": {"command": "/bin/sh", "args": ["-c",
                        "exec python3 -m http.server $NOMAD_PORT_http --bind $NOMAD_IP_http"]}}]}]}}
                """.formatted(id, 2 * SECOND, healthyDeadlineSeconds * SECOND, (healthyDeadlineSeconds + 60) * SECOND,
                service, checkPath, SECOND, SECOND));
        assertEquals(200, response.statusCode(), response.body());
    }

    private static String deploymentStatus(String job) {
        return agent.json("/v1/job/" + job + "/deployment").path("Status").asText();
    }

    @Test
    void aPythonServiceIsDiscoveredCheckedAndHealthyForItsDeployment() throws Exception {
        register("web", "web", "/", 60);
        AgentProcess.await("the service is registered", WAIT, () -> agent.json("/v1/service/web").size() == 1);
        JsonNode reg = agent.json("/v1/service/web").get(0);
        String address = reg.get("Address").asText() + ":" + reg.get("Port").asInt();
        assertTrue(reg.get("Port").asInt() > 0, reg.toString());
        assertTrue(cli("info", "service", "info", "web").contains(address), "service info shows " + address);
        assertTrue(cli("list", "service", "list").contains("web"));

        HttpResponse<String> page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://" + address + "/")).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, page.statusCode(), "the registered address answers");

        String allocId = reg.get("AllocID").asText();
        AgentProcess.await("the check passes", WAIT, () -> {
            JsonNode checks = agent.json("/v1/client/allocation/" + allocId + "/checks");
            return checks.size() == 1 && checks.elements().next().path("Status").asText().equals("success");
        });
        assertTrue(cli("checks", "alloc", "checks", allocId).contains("success"));
        AgentProcess.await("the deployment succeeds", WAIT, () -> deploymentStatus("web").equals("successful"));
        assertTrue(agent.json("/v1/allocation/" + allocId).path("DeploymentStatus").path("Healthy").asBoolean());
    }

    @Test
    void aDeploymentWhoseCheckNeverPassesFails() throws Exception {
        register("broken", "broken", "/missing", 8);
        AgentProcess.await("the broken service is registered", WAIT,
                () -> agent.json("/v1/service/broken").size() == 1);
        String allocId = agent.json("/v1/service/broken").get(0).get("AllocID").asText();
        AgentProcess.await("the check fails", WAIT, () -> {
            JsonNode checks = agent.json("/v1/client/allocation/" + allocId + "/checks");
            return checks.size() == 1 && checks.elements().next().path("Status").asText().equals("failure");
        });
        assertEquals("running", deploymentStatus("broken"), "no health while the check fails");
        AgentProcess.await("the deployment fails at the healthy deadline", WAIT,
                () -> deploymentStatus("broken").equals("failed"));
        assertEquals(false, agent.json("/v1/allocation/" + allocId).path("DeploymentStatus").path("Healthy")
                .asBoolean(true));
    }
}
