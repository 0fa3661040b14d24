package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * A client-only agent with ACLs on has no ACL tables: it resolves tokens through its server
 * ({@code ACL.ResolveToken}) and enforces the same rules on its own routes, and the calls it forwards are
 * authorized by the server.
 */
class AclClientAgentE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String ACL = "acl {\n  enabled = true\n}\n";

    @Test
    void aClientAgentEnforcesTokensItResolvesThroughItsServer() throws Exception {
        Path dir = Files.createTempDirectory("caravan-acl-client-");
        List<AgentProcess> agents = new ArrayList<>();
        try {
            List<ServerFiles.Ports> ports = ServerFiles.ports(2);
            ServerFiles.Ports sp = ports.get(0);
            Files.writeString(dir.resolve("server.hcl"), ServerFiles.soloServerConfig(dir, "server1", sp) + ACL);
            AgentProcess server = AgentProcess.start(dir.resolve("server.hcl"), dir.resolve("server.log"), sp.http(),
                    sp.rpc());
            agents.add(server);
            AgentProcess.await("the server leads", WAIT, () -> !ServerFiles.leaderOf(server).isEmpty());
            ServerFiles.Ports cp = ports.get(1);
            Files.writeString(dir.resolve("client.hcl"), ServerFiles.clientConfig(dir, "client1", cp,
                    List.of(sp.rpcAddress())) + ACL);
            AgentProcess client = AgentProcess.start(dir.resolve("client.hcl"), dir.resolve("client.log"), cp.http(),
                    cp.rpc());
            agents.add(client);

            HttpResponse<String> bootstrap = server.call("POST", "/v1/acl/bootstrap", null, null);
            assertEquals(200, bootstrap.statusCode(), bootstrap.body());
            String management = AgentProcess.JSON.readTree(bootstrap.body()).path("SecretID").asText();
            String reader = server.tokenWith(management, "reader", "namespace \"default\" { policy = \"read\" }");
            String agentReader = server.tokenWith(management, "agent-reader", "agent { policy = \"read\" }");
            AgentProcess.await("the client node is ready", WAIT, () -> {
                try {
                    JsonNode nodes = AgentProcess.JSON.readTree(server.call("GET", "/v1/nodes", management, null)
                            .body());
                    return nodes.findValues("Status").stream().anyMatch(s -> s.asText().equals("ready"));
                } catch (Exception e) {
                    return false;
                }
            });

            // The client's own routes, checked with tokens it resolved through the server.
            assertEquals(200, client.call("GET", "/v1/agent/health", null, null).statusCode());
            assertEquals(403, client.call("GET", "/v1/agent/self", null, null).statusCode());
            assertEquals(403, client.call("GET", "/v1/agent/self", reader, null).statusCode());
            assertEquals(200, client.call("GET", "/v1/agent/self", agentReader, null).statusCode());
            assertEquals(200, client.call("GET", "/v1/agent/self", management, null).statusCode());
            HttpResponse<String> unknown = client.call("GET", "/v1/agent/self",
                    "00000000-0000-4000-8000-000000000000", null);
            assertEquals(403, unknown.statusCode(), unknown.body());
            assertEquals("ACL token not found", unknown.body().strip());
            assertEquals(403, client.call("PUT", "/v1/agent/reload", agentReader, null).statusCode());

            // Calls the client forwards are authorized by the server.
            assertEquals(403, client.call("GET", "/v1/jobs", null, null).statusCode());
            assertEquals(200, client.call("GET", "/v1/jobs", reader, null).statusCode());
            assertEquals(403, client.call("GET", "/v1/nodes", reader, null).statusCode());
        } finally {
            for (AgentProcess a : agents) {
                a.close();
            }
            AgentProcess.deleteTree(dir);
        }
    }
}
