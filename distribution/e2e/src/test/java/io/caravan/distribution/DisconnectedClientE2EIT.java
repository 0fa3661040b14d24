package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.distribution.ServerFiles.Ports;
import org.junit.jupiter.api.Test;

/**
 * Seed 001 on real processes: a client agent frozen with SIGSTOP past its heartbeat TTL, five times. Its job has
 * {@code disconnect { lost_after = "2m", reconcile = "keep_original" }}, so each time the node must go
 * {@code disconnected} (never {@code down}), the allocation {@code unknown} (never {@code lost}) with one replacement
 * on the other client; after SIGCONT the node is {@code ready} again, the original runs on and the replacement is
 * stopped — one replacement per freeze, nothing more.
 */
class DisconnectedClientE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int CYCLES = 5;

    @Test
    void aFrozenClientIsDisconnectedAndReconnectsWithoutSpuriousPlacements() throws Exception {
        Path dir = Files.createTempDirectory("caravan-disconnect-");
        List<Ports> ports = ServerFiles.ports(3);
        List<AgentProcess> agents = new ArrayList<>();
        try {
            Ports sp = ports.get(0);
            Files.writeString(dir.resolve("server.hcl"), ServerFiles.agentConfig(dir, "server1", sp) + """
                    server {
                      enabled           = true
                      bootstrap_expect  = 1
                      min_heartbeat_ttl = "1s"
                      heartbeat_grace   = "2s"
                    }
                    """);
            AgentProcess server = AgentProcess.start(dir.resolve("server.hcl"), dir.resolve("server.log"), sp.http(),
                    sp.rpc());
            agents.add(server);
            AgentProcess.await("the server leads", WAIT, () -> !ServerFiles.leaderOf(server).isEmpty());
            List<AgentProcess> clients = new ArrayList<>();
            for (int i = 1; i <= 2; i++) {
                Ports cp = ports.get(i);
                Path config = dir.resolve("client" + i + ".hcl");
                Files.writeString(config, ServerFiles.clientConfig(dir, "client" + i, cp, List.of(sp.rpcAddress())));
                AgentProcess client = AgentProcess.start(config, dir.resolve("client" + i + ".log"), cp.http(),
                        cp.rpc());
                agents.add(client);
                clients.add(client);
            }
            AgentProcess.await("both client nodes are ready", WAIT, () -> server.json("/v1/nodes").findValues("Status")
                    .stream().filter(s -> s.asText().equals("ready")).count() == 2);

            var response = server.putForm("/v1/jobs", """
                    {"Job": {"ID": "steady", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g", "Count": 1,
                      "Disconnect": {"LostAfter": 120000000000, "Reconcile": "keep_original"},
                      "Tasks": [{"Name": "t", "Driver": "raw_exec",
                                 "Config": {"command": "/bin/sleep", "args": ["600"]}}]}]}}
                    """);
            assertEquals(200, response.statusCode(), response.body());
            AgentProcess.await("the job runs", WAIT, () -> running(server).size() == 1);
            JsonNode original = live(server).get(0);
            String originalId = original.get("ID").asText();
            String nodeId = original.get("NodeID").asText();
            AgentProcess frozen = clients.get(original.get("NodeName").asText().equals("client1") ? 0 : 1);
            Set<String> nodeStatuses = new HashSet<>();

            for (int cycle = 1; cycle <= CYCLES; cycle++) {
                int expectedAllocs = 1 + cycle;
                frozen.signal("STOP");
                try {
                    AgentProcess.await("cycle " + cycle + ": the node is disconnected", WAIT, () -> {
                        String status = nodeStatus(server, nodeId);
                        nodeStatuses.add(status);
                        return status.equals("disconnected");
                    });
                    AgentProcess.await("cycle " + cycle + ": the allocation is unknown and replaced", WAIT, () ->
                            clientStatus(server, originalId).equals("unknown") && live(server).stream().anyMatch(
                                    a -> !a.get("ID").asText().equals(originalId)
                                            && a.get("ClientStatus").asText().equals("running")));
                } finally {
                    frozen.signal("CONT");
                }
                AgentProcess.await("cycle " + cycle + ": the node is ready again", WAIT, () -> {
                    String status = nodeStatus(server, nodeId);
                    nodeStatuses.add(status);
                    return status.equals("ready");
                });
                AgentProcess.await("cycle " + cycle + ": only the original runs", WAIT, () -> {
                    List<JsonNode> live = live(server);
                    return live.size() == 1 && live.get(0).get("ID").asText().equals(originalId)
                            && live.get(0).get("ClientStatus").asText().equals("running");
                });
                JsonNode allocs = server.json("/v1/job/steady/allocations");
                assertEquals(expectedAllocs, allocs.size(), "one replacement per freeze, nothing more: " + allocs);
                for (JsonNode a : allocs) {
                    assertTrue(!a.get("ClientStatus").asText().equals("lost"), "nothing lost: " + allocs);
                }
                AgentProcess.await("cycle " + cycle + ": the replacement has stopped", WAIT, () ->
                        running(server).size() == 1);
            }
            assertTrue(!nodeStatuses.contains("down"), "the node was never down: " + nodeStatuses);
        } finally {
            for (AgentProcess a : agents) {
                a.signal("CONT");
                a.close();
            }
        }
    }


    private static String nodeStatus(AgentProcess server, String nodeId) {
        try {
            return server.json("/v1/node/" + nodeId).get("Status").asText();
        } catch (Exception e) {
            return "";
        }
    }

    private static String clientStatus(AgentProcess server, String allocId) {
        try {
            return server.json("/v1/allocation/" + allocId).get("ClientStatus").asText();
        } catch (Exception e) {
            return "";
        }
    }

    /** The job's allocations the servers want running. */
    private static List<JsonNode> live(AgentProcess server) {
        return allocs(server, a -> a.get("DesiredStatus").asText().equals("run"));
    }

    /** The job's allocations whose clients report them running. */
    private static List<JsonNode> running(AgentProcess server) {
        return allocs(server, a -> a.get("ClientStatus").asText().equals("running"));
    }

    private static List<JsonNode> allocs(AgentProcess server, Predicate<JsonNode> which) {
        List<JsonNode> out = new ArrayList<>();
        try {
            for (JsonNode a : server.json("/v1/job/steady/allocations")) {
                if (which.test(a)) {
                    out.add(a);
                }
            }
        } catch (Exception e) {
            return List.of(); // the server is busy or restarting: the caller's wait asks again
        }
        return out;
    }
}
