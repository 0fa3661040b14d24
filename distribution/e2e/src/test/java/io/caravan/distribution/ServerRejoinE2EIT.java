package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.distribution.ServerFiles.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three servers with {@code leave_on_terminate = true} (as seed 002's guide configures them): a server stopped with
 * SIGTERM leaves the Raft group, and started again on the same data directory it rejoins through retry_join, is added
 * back as a voter by the leader, catches up on what was written while it was away, and serves it. A follower goes
 * through that three times, then the leader once. The Raft configuration names servers by the same RPC addresses as
 * {@code /v1/status/leader} and {@code /v1/status/peers}.
 */
class ServerRejoinE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** A restarted server's log stays small: a Raft failure is said once, not as a torrent of stack traces. */
    private static final long MAX_LOG_BYTES = 512 * 1024;

    private final List<AgentProcess> agents = new ArrayList<>();
    private Path dir;
    private boolean passed;

    /** Stops every agent; the directory (data and logs) is kept only when the test failed. */
    @AfterEach
    void stop() throws Exception {
        for (AgentProcess a : agents) {
            a.close();
        }
        if (passed && dir != null) {
            AgentProcess.deleteTree(dir);
        }
    }

    @Test
    void serversThatLeaveOnTerminateRejoinAsVotersWithTheClustersData() throws Exception {
        dir = Files.createTempDirectory("caravan-rejoin-");
        String key = ServerFiles.gossipKey();
        List<Ports> ports = ServerFiles.ports(3);
        AgentProcess[] servers = new AgentProcess[3];
        for (int i = 0; i < 3; i++) {
            Files.writeString(config(dir, i), "leave_on_terminate = true\n"
                    + ServerFiles.serverConfig(dir, i + 1, ports.get(i), ports, key));
            servers[i] = start(dir, ports, i, "server" + (i + 1) + ".log");
        }
        String leader = awaitLeader(List.of(servers), null);
        assertAddressesAgree(servers[ServerFiles.indexOf(ports, leader)]);

        List<String> jobs = new ArrayList<>();
        jobs.add(register(servers[0], "job0"));

        // A follower, three times: it leaves on SIGTERM, a job is written while it is away, it comes back with it.
        int follower = (ServerFiles.indexOf(ports, leader) + 1) % 3;
        for (int round = 1; round <= 3; round++) {
            servers[follower] = restart(dir, ports, servers, follower, "job" + round, jobs, round);
        }
        assertAddressesAgree(servers[follower]);

        // The leader once: it hands over, leaves, and rejoins as a follower.
        int leaderIndex = ServerFiles.indexOf(ports, awaitLeader(List.of(servers), null));
        servers[leaderIndex] = restart(dir, ports, servers, leaderIndex, "job4", jobs, 4);
        assertAddressesAgree(servers[leaderIndex]);
        passed = true;
    }

    /**
     * Stops server {@code i} with SIGTERM, checks it left the group, writes {@code job} meanwhile, starts it again on
     * the same data directory and waits until it is a voter again and serves every job.
     */
    private AgentProcess restart(Path dir, List<Ports> ports, AgentProcess[] servers, int i, String job,
                                 List<String> jobs, int round) throws Exception {
        AgentProcess leaving = servers[i];
        String self = ownId(leaving);
        leaving.signal("TERM");
        assertTrue(leaving.process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "server" + (i + 1) + " exits");
        assertEquals(0, leaving.process.exitValue(), "a graceful leave exits with 0:\n" + leaving.log());

        List<AgentProcess> rest = new ArrayList<>();
        for (int k = 0; k < servers.length; k++) {
            if (k != i) {
                rest.add(servers[k]);
            }
        }
        String leader = awaitLeader(rest, ports.get(i).rpcAddress());
        AgentProcess survivor = rest.get(0);
        AgentProcess.await("the group without the leaving server: two voters", WAIT,
                () -> voterIds(survivor).equals(otherIds(rest)));
        assertFalse(voterIds(survivor).contains(self), "it left the Raft configuration");
        jobs.add(register(survivor, job));

        long started = System.nanoTime();
        AgentProcess back = start(dir, ports, i, "server" + (i + 1) + ".restart" + round + ".log");
        AgentProcess.await("server" + (i + 1) + " is a voter again (round " + round + ")", WAIT, () -> {
            Set<String> voters = voterIds(survivor);
            return voters.size() == 3 && voters.contains(self);
        });
        AgentProcess.await("server" + (i + 1) + " serves every job (round " + round + ")", WAIT,
                () -> jobIds(back).containsAll(jobs));
        long rejoinMs = (System.nanoTime() - started) / 1_000_000;
        AgentProcess.await("server" + (i + 1) + " follows the leader", WAIT,
                () -> ServerFiles.leaderOf(back).equals(ServerFiles.leaderOf(survivor))
                        && !ServerFiles.leaderOf(back).isEmpty());
        assertEquals(Set.copyOf(jobs), jobIds(back));
        long size = Files.size(back.log);
        assertTrue(size < MAX_LOG_BYTES, "log of " + size + " bytes:\n" + back.log());
        assertFalse(back.log().contains("The Raft server stopped"), back.log());
        System.out.println("round " + round + ": server" + (i + 1) + " started again -> voter serving every job in "
                + rejoinMs + " ms (leader meanwhile " + leader + ")");
        return back;
    }

    private AgentProcess start(Path dir, List<Ports> ports, int i, String logName) throws Exception {
        Ports p = ports.get(i);
        AgentProcess a = AgentProcess.start(config(dir, i), dir.resolve(logName), p.http(), p.rpc());
        agents.add(a);
        return a;
    }

    private static Path config(Path dir, int i) {
        return dir.resolve("server" + (i + 1) + ".hcl");
    }

    /** Waits until {@code among} agree on one leader that is not {@code notThis}; returns its RPC address. */
    private static String awaitLeader(List<AgentProcess> among, String notThis) throws InterruptedException {
        AgentProcess.await("the servers agree on a leader", WAIT, () -> {
            Set<String> leaders = among.stream().map(ServerFiles::leaderOf).collect(Collectors.toSet());
            return leaders.size() == 1 && !leaders.contains("") && !leaders.contains(notThis);
        });
        return ServerFiles.leaderOf(among.get(0));
    }

    /** The Raft configuration's addresses are RPC addresses: the same strings as /v1/status/leader and peers. */
    private static void assertAddressesAgree(AgentProcess a) throws InterruptedException {
        // A leader that /v1/status/leader already names may answer "No cluster leader" for a moment, until its own
        // Raft server is ready to write (as Nomad does during an election): wait for that, bounded.
        AgentProcess.await("the leader serves its Raft configuration", WAIT, () -> {
            try {
                a.json("/v1/operator/raft/configuration");
                return true;
            } catch (AssertionError notYet) {
                return false;
            }
        });
        JsonNode servers = a.json("/v1/operator/raft/configuration").get("Servers");
        Set<String> addresses = new TreeSet<>();
        String leader = "";
        for (JsonNode s : servers) {
            addresses.add(s.get("Address").asText());
            if (s.get("Leader").asBoolean()) {
                leader = s.get("Address").asText();
            }
        }
        Set<String> peers = new TreeSet<>();
        a.json("/v1/status/peers").forEach(p -> peers.add(p.asText()));
        assertEquals(3, addresses.size(), servers.toString());
        assertEquals(peers, addresses, "/v1/status/peers and the Raft configuration");
        assertEquals(ServerFiles.leaderOf(a), leader, "/v1/status/leader and the Raft configuration's leader");
    }

    private static String ownId(AgentProcess a) {
        JsonNode self = a.json("/v1/agent/self");
        String name = self.get("member").get("Name").asText();
        for (JsonNode m : a.json("/v1/agent/members").get("Members")) {
            if (m.get("Name").asText().equals(name)) {
                return m.get("Tags").get("id").asText();
            }
        }
        throw new AssertionError("no member " + name);
    }

    private static Set<String> otherIds(List<AgentProcess> rest) {
        return rest.stream().map(ServerRejoinE2EIT::ownId).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> voterIds(AgentProcess a) {
        Set<String> ids = new TreeSet<>();
        try {
            for (JsonNode s : a.json("/v1/operator/raft/configuration").get("Servers")) {
                if (s.get("Voter").asBoolean()) {
                    ids.add(s.get("ID").asText());
                }
            }
        } catch (AssertionError | NullPointerException notNow) {
            return Set.of();
        }
        return ids;
    }

    /** The jobs this server itself serves ({@code stale}: no forwarding to the leader). */
    private static Set<String> jobIds(AgentProcess a) {
        Set<String> ids = new TreeSet<>();
        try {
            for (JsonNode j : a.json("/v1/jobs?stale=true")) {
                ids.add(j.get("ID").asText());
            }
        } catch (AssertionError | NullPointerException notNow) {
            return Set.of();
        }
        return ids;
    }

    private static String register(AgentProcess a, String id) throws Exception {
        var r = a.putForm("/v1/jobs", """
                {"Job": {"ID": "%s", "Type": "service", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                  "Count": 1, "Tasks": [{"Name": "t", "Driver": "raw_exec",
                  "Config": {"command": "/bin/sleep", "args": ["300"]}}]}]}}
                """.formatted(id));
        assertEquals(200, r.statusCode(), r.body());
        return id;
    }
}
