package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.distribution.ServerFiles.Ports;
import org.junit.jupiter.api.Test;

/**
 * Seed 000's forwarding on real processes, ACLs on: a server and a client-only agent; {@code PUT /v1/agent/reload
 * ?node_id=} at the server reloads the client (its log shows the reload, the server's does not), needs
 * {@code agent:write} at the server, and names no unknown node; {@code caravan config reload -all} reloads both.
 */
class ReloadForwardE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String RELOADED = "agent configuration reloaded";

    @Test
    void aReloadNamingTheClientNodeReachesItThroughTheServer() throws Exception {
        Path dir = Files.createTempDirectory("caravan-reload-fwd-");
        List<Ports> ports = ServerFiles.ports(2);
        List<AgentProcess> agents = new ArrayList<>();
        String acl = "acl {\n  enabled = true\n}\n";
        try {
            Ports sp = ports.get(0);
            Files.writeString(dir.resolve("server.hcl"), ServerFiles.soloServerConfig(dir, "server1", sp) + acl);
            AgentProcess server = AgentProcess.start(dir.resolve("server.hcl"), dir.resolve("server.log"), sp.http(),
                    sp.rpc());
            agents.add(server);
            AgentProcess.await("the server leads", WAIT, () -> !ServerFiles.leaderOf(server).isEmpty());
            HttpResponse<String> bootstrap = server.call("POST", "/v1/acl/bootstrap", null, null);
            assertEquals(200, bootstrap.statusCode(), bootstrap.body());
            String management = AgentProcess.JSON.readTree(bootstrap.body()).path("SecretID").asText();

            Ports cp = ports.get(1);
            Path clientConfig = dir.resolve("client.hcl");
            String client = ServerFiles.clientConfig(dir, "client1", cp, List.of(sp.rpcAddress())) + acl;
            Files.writeString(clientConfig, withRack(client, "r1"));
            agents.add(AgentProcess.start(clientConfig, dir.resolve("client.log"), cp.http(), cp.rpc()));
            AgentProcess clientAgent = agents.get(1);
            AgentProcess.await("the client node is ready", WAIT, () -> nodes(server, management).findValues("Status")
                    .stream().anyMatch(s -> s.asText().equals("ready")));
            String nodeId = nodes(server, management).get(0).path("ID").asText();
            int clientBefore = count(clientAgent);
            int serverBefore = count(server);

            Files.writeString(clientConfig, withRack(client, "r2"));
            HttpResponse<String> anonymous = server.call("PUT", "/v1/agent/reload?node_id=" + nodeId, null, null);
            assertEquals(403, anonymous.statusCode(), "agent:write is checked at the server: " + anonymous.body());

            HttpResponse<String> reloaded = server.call("PUT", "/v1/agent/reload?node_id=" + nodeId, management,
                    null);
            assertEquals(200, reloaded.statusCode(), reloaded.body());
            JsonNode report = AgentProcess.JSON.readTree(reloaded.body());
            assertTrue(report.path("Changed").toString().contains("rack"), "the client's file changed: " + report);
            AgentProcess.await("the client logs the reload", WAIT, () -> count(clientAgent) == clientBefore + 1);
            assertTrue(clientAgent.log().contains("reload requested through a server"), clientAgent.log());
            assertFalse(clientAgent.log().contains(management), "the secret never reaches the client's log");
            assertEquals(serverBefore, count(server), "the server did not reload:\n" + server.log());

            HttpResponse<String> unknown = server.call("PUT",
                    "/v1/agent/reload?node_id=00000000-0000-4000-8000-000000000000", management, null);
            assertEquals(404, unknown.statusCode(), unknown.body());
            assertEquals("Unknown node \"00000000-0000-4000-8000-000000000000\"", unknown.body().strip());
            HttpResponse<String> unknownServer = server.call("PUT", "/v1/agent/reload?server_id=server9", management,
                    null);
            assertEquals(404, unknownServer.statusCode(), unknownServer.body());
            assertEquals(serverBefore, count(server));
            assertEquals(clientBefore + 1, count(clientAgent));

            Path cliLog = dir.resolve("cli.log");
            Process cli = AgentProcess.run(cliLog, "config", "reload", "-all", "-address", server.address(),
                    "-token", management);
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS), "the CLI answers within 60 s");
            String out = AgentProcess.read(cliLog);
            assertEquals(0, cli.exitValue(), out);
            assertTrue(out.contains("server server1.global: reloaded in "), out);
            assertTrue(out.contains("client " + nodeId.substring(0, 8) + " (client1): reloaded in "), out);
            assertEquals(2, out.lines().count(), "one line per agent: " + out);
            AgentProcess.await("both agents log the -all reload", WAIT,
                    () -> count(clientAgent) == clientBefore + 2 && count(server) == serverBefore + 1);
        } finally {
            for (AgentProcess a : agents) {
                a.close();
            }
            AgentProcess.deleteTree(dir);
        }
    }

    /** The client file with its node's {@code rack} meta set to {@code rack}: a change a reload reports. */
    private static String withRack(String clientConfig, String rack) {
        return clientConfig.replace("client {\n", "client {\n  meta {\n    rack = \"" + rack + "\"\n  }\n");
    }

    private static JsonNode nodes(AgentProcess server, String token) {
        try {
            return AgentProcess.JSON.readTree(server.call("GET", "/v1/nodes", token, null).body());
        } catch (Exception e) {
            return AgentProcess.JSON.createArrayNode();
        }
    }

    /** How many reloads the agent's log shows. */
    private static int count(AgentProcess agent) {
        String log = agent.log();
        int n = 0;
        for (int i = log.indexOf(RELOADED); i >= 0; i = log.indexOf(RELOADED, i + 1)) {
            n++;
        }
        return n;
    }
}
