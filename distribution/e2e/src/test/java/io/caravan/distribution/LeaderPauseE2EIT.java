package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.distribution.ServerFiles.Ports;
import org.junit.jupiter.api.Test;

/**
 * The leader is paused (SIGSTOP: its connections stay open, it answers nothing) while a client talks to it. The two
 * other servers elect a new leader; the client must move to them in time to keep its node {@code ready}, and a job
 * stopped through the new leader must stop on the client within a heartbeat — not after the paused server's calls
 * time out minutes later.
 */
class LeaderPauseE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    /**
     * Within one heartbeat TTL (10–20 s for a small cluster): the client's connection drops the paused server after
     * 6 s without a pong, and its calls move on. 7.2 s measured on the 2-core VM.
     */
    private static final Duration STOP_REACHES_CLIENT = Duration.ofSeconds(20);

    @Test
    void aStopDecidedAfterTheLeaderPausedReachesTheClient() throws Exception {
        Path dir = Files.createTempDirectory("caravan-leader-pause-");
        String key = ServerFiles.gossipKey();
        List<Ports> ports = ServerFiles.ports(4);
        List<AgentProcess> servers = new ArrayList<>();
        List<AgentProcess> agents = new ArrayList<>();
        AgentProcess paused = null;
        try {
            for (int i = 0; i < 3; i++) {
                Path config = dir.resolve("server" + (i + 1) + ".hcl");
                Files.writeString(config, ServerFiles.serverConfig(dir, i + 1, ports.get(i), ports.subList(0, 3), key));
                AgentProcess s = AgentProcess.start(config, dir.resolve("server" + (i + 1) + ".log"),
                        ports.get(i).http(), ports.get(i).rpc());
                servers.add(s);
                agents.add(s);
            }
            AgentProcess.await("the servers agree on a leader", WAIT, () -> {
                Set<String> leaders = servers.stream().map(ServerFiles::leaderOf).collect(Collectors.toSet());
                return leaders.size() == 1 && !leaders.contains("");
            });
            String leaderRpc = ServerFiles.leaderOf(servers.get(0));
            AgentProcess leader = servers.get(ServerFiles.indexOf(ports, leaderRpc));
            List<AgentProcess> rest = servers.stream().filter(s -> s != leader).toList();

            // The client knows the leader first, so its calls go there until the leader falls silent.
            Ports cp = ports.get(3);
            List<String> known = new ArrayList<>(ports.subList(0, 3).stream().map(Ports::rpcAddress).toList());
            known.sort((a, b) -> Boolean.compare(!a.equals(leaderRpc), !b.equals(leaderRpc)));
            Files.writeString(dir.resolve("client.hcl"), ServerFiles.clientConfig(dir, "client1", cp, known));
            agents.add(AgentProcess.start(dir.resolve("client.hcl"), dir.resolve("client.log"), cp.http(), cp.rpc()));
            AgentProcess survivor = rest.get(0);
            AgentProcess.await("the client node is ready", WAIT, () -> survivor.json("/v1/nodes")
                    .findValues("Status").stream().anyMatch(s -> s.asText().equals("ready")));
            var registered = survivor.putForm("/v1/jobs", """
                    {"Job": {"ID": "sleeper", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g", "Count": 1,
                      "Tasks": [{"Name": "t", "Driver": "raw_exec",
                                 "Config": {"command": "/bin/sleep", "args": ["600"]}}]}]}}
                    """);
            assertEquals(200, registered.statusCode(), registered.body());
            AgentProcess.await("the job runs", WAIT, () -> clientStatuses(survivor).equals(List.of("running")));

            leader.signal("STOP");
            paused = leader;
            AgentProcess.await("a new leader among the others", WAIT, () -> {
                Set<String> l = rest.stream().map(ServerFiles::leaderOf).collect(Collectors.toSet());
                return l.size() == 1 && !l.contains("") && !l.contains(leaderRpc);
            });
            var stopped = survivor.delete("/v1/job/sleeper");
            assertEquals(200, stopped.statusCode(), stopped.body());
            long decided = System.nanoTime();
            AgentProcess.await("the client stops the task", STOP_REACHES_CLIENT,
                    () -> clientStatuses(survivor).equals(List.of("complete")));
            System.out.println("stop after a paused leader reached the client in "
                    + (System.nanoTime() - decided) / 1_000_000 + " ms");
            assertEquals("ready", survivor.json("/v1/nodes").get(0).get("Status").asText(),
                    "the node never missed its heartbeats");
        } finally {
            if (paused != null) {
                paused.signal("CONT");
            }
            for (AgentProcess a : agents) {
                a.close();
            }
        }
    }

    private static List<String> clientStatuses(AgentProcess server) {
        List<String> out = new ArrayList<>();
        try {
            for (JsonNode a : server.json("/v1/job/sleeper/allocations")) {
                out.add(a.get("ClientStatus").asText());
            }
        } catch (Exception e) {
            return List.of();
        }
        return out;
    }

}
