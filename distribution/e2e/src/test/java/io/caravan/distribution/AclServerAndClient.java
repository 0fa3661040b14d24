package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One server and one client-only agent, both with ACLs on, the ACL system bootstrapped and the client's node ready:
 * the set-up of the tests that need a client separate from its server. Closing it stops both and deletes the dir.
 */
final class AclServerAndClient implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(60);
    private static final String ACL = "acl {\n  enabled = true\n}\n";

    final Path dir;
    final AgentProcess server;
    final AgentProcess client;
    /** The bootstrap token's secret. */
    final String management;

    private AclServerAndClient(Path dir, AgentProcess server, AgentProcess client, String management) {
        this.dir = dir;
        this.server = server;
        this.client = client;
        this.management = management;
    }

    static AclServerAndClient start(String tempPrefix) throws Exception {
        Path dir = Files.createTempDirectory(tempPrefix);
        AgentProcess server = null;
        AgentProcess client = null;
        try {
            List<ServerFiles.Ports> ports = ServerFiles.ports(2);
            ServerFiles.Ports sp = ports.get(0);
            Files.writeString(dir.resolve("server.hcl"), ServerFiles.soloServerConfig(dir, "server1", sp) + ACL);
            server = AgentProcess.start(dir.resolve("server.hcl"), dir.resolve("server.log"), sp.http(), sp.rpc());
            AgentProcess leader = server;
            AgentProcess.await("the server leads", WAIT, () -> !ServerFiles.leaderOf(leader).isEmpty());
            ServerFiles.Ports cp = ports.get(1);
            Files.writeString(dir.resolve("client.hcl"), ServerFiles.clientConfig(dir, "client1", cp,
                    List.of(sp.rpcAddress())) + ACL);
            client = AgentProcess.start(dir.resolve("client.hcl"), dir.resolve("client.log"), cp.http(), cp.rpc());

            HttpResponse<String> bootstrap = server.call("POST", "/v1/acl/bootstrap", null, null);
            assertEquals(200, bootstrap.statusCode(), bootstrap.body());
            String management = AgentProcess.JSON.readTree(bootstrap.body()).path("SecretID").asText();
            AgentProcess.await("the client node is ready", WAIT, () -> {
                try {
                    JsonNode nodes = AgentProcess.JSON.readTree(leader.call("GET", "/v1/nodes", management, null)
                            .body());
                    return nodes.findValues("Status").stream().anyMatch(s -> s.asText().equals("ready"));
                } catch (Exception e) {
                    return false;
                }
            });
            return new AclServerAndClient(dir, server, client, management);
        } catch (Exception | Error e) {
            stop(server, client, dir);
            throw e;
        }
    }

    /** Stops every job first: tasks of a client that is simply stopped keep running (as in Nomad). */
    @Override
    public void close() throws Exception {
        try {
            for (JsonNode job : AgentProcess.JSON.readTree(server.call("GET", "/v1/jobs", management, null).body())) {
                server.call("DELETE", "/v1/job/" + job.path("ID").asText() + "?purge=true", management, null);
            }
            AgentProcess.await("the client's tasks stop", WAIT, () -> {
                try {
                    JsonNode allocs = AgentProcess.JSON.readTree(
                            server.call("GET", "/v1/allocations", management, null).body());
                    return allocs.findValues("ClientStatus").stream()
                            .noneMatch(s -> s.asText().equals("running") || s.asText().equals("pending"));
                } catch (Exception e) {
                    return false;
                }
            });
        } finally {
            stop(server, client, dir);
        }
    }

    private static void stop(AgentProcess server, AgentProcess client, Path dir) throws Exception {
        try {
            if (client != null) {
                client.close();
            }
        } finally {
            try {
                if (server != null) {
                    server.close();
                }
            } finally {
                AgentProcess.deleteTree(dir);
            }
        }
    }
}
