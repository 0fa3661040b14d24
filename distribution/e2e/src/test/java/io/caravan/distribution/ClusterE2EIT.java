package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
import org.junit.jupiter.api.AfterEach;
import io.caravan.distribution.ServerFiles.Ports;
import org.junit.jupiter.api.Test;

/**
 * Three server processes and a client process from the distribution, each with its own HCL file as a deployment
 * guide writes them (bootstrap_expect = 3, a gossip key, retry_join): the servers elect a leader, a job runs on the
 * client, and after kill -9 of the leader a new one takes over, the allocations keep running, a new job is accepted
 * and placed (the client, configured with the dead leader only, fails over to the servers it was told of), and the
 * killed server rejoins with its data.
 */
class ClusterE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(90);

    private final List<AgentProcess> agents = new ArrayList<>();
    private Path dir;

    @AfterEach
    void stop() throws Exception {
        for (AgentProcess a : agents) {
            if (a.process.isAlive()) {
                try {   // stop the jobs' tasks: the client leaves them running on shutdown, as Nomad does
                    a.delete("/v1/job/web?purge=true");
                    a.delete("/v1/job/web2?purge=true");
                } catch (Exception ignored) {
                    // best effort
                }
                break;
            }
        }
        Thread.sleep(1500);
        for (AgentProcess a : agents) {
            a.close();
        }
    }

    private AgentProcess startServer(int i, Ports p, String logName) throws Exception {
        AgentProcess a = AgentProcess.start(dir.resolve("server" + i + ".hcl"), dir.resolve(logName), p.http(), p.rpc());
        agents.add(a);
        return a;
    }

    @Test
    void threeServersAndAClientSurviveTheLossOfTheLeader() throws Exception {
        dir = Files.createTempDirectory("caravan-cluster-");
        String key = ServerFiles.gossipKey();
        // Three servers, a client and an intruder.
        List<Ports> ports = ServerFiles.ports(5);
        List<AgentProcess> servers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Files.writeString(dir.resolve("server" + (i + 1) + ".hcl"),
                    ServerFiles.serverConfig(dir, i + 1, ports.get(i), ports.subList(0, 3), key));
            servers.add(startServer(i + 1, ports.get(i), "server" + (i + 1) + ".log"));
        }

        AgentProcess.await("the three servers agree on a leader", WAIT, () -> {
            Set<String> leaders = servers.stream().map(ServerFiles::leaderOf).collect(Collectors.toSet());
            return leaders.size() == 1 && !leaders.contains("");
        });
        String leaderRpc = ServerFiles.leaderOf(servers.get(0));
        int leaderIndex = ServerFiles.indexOf(ports, leaderRpc);
        AgentProcess leader = servers.get(leaderIndex);
        AgentProcess follower = servers.get((leaderIndex + 1) % 3);

        // server members: three alive, one leader.
        Path membersOut = dir.resolve("members.out");
        Process members = AgentProcess.run(membersOut, "server", "members", "-address", follower.address());
        assertTrue(members.waitFor(60, TimeUnit.SECONDS));
        String table = Files.readString(membersOut);
        assertEquals(0, members.exitValue(), table);
        List<String> rows = table.lines().skip(1).filter(l -> !l.isBlank()).toList();
        assertEquals(3, rows.size(), table);
        assertTrue(rows.stream().allMatch(r -> r.contains(" alive ")), table);
        assertEquals(1, rows.stream().filter(r -> r.matches(".* alive\\s+true .*")).count(), table);

        // A client-only agent that knows only the leader.
        Ports cp = ports.get(3);
        Files.writeString(dir.resolve("client.hcl"), ServerFiles.clientConfig(dir, "client1", cp, List.of(leaderRpc)));
        AgentProcess client = AgentProcess.start(dir.resolve("client.hcl"), dir.resolve("client.log"), cp.http(),
                cp.rpc());
        agents.add(client);
        AgentProcess.await("the client node is ready", WAIT, () -> follower.json("/v1/nodes")
                .findValues("Status").stream().anyMatch(s -> s.asText().equals("ready")));

        // The Raft configuration names the three, one leader; the client was told of all three servers.
        JsonNode raft = follower.json("/v1/operator/raft/configuration").get("Servers");
        assertEquals(3, raft.size(), raft.toString());
        assertEquals(1, raft.findValues("Leader").stream().filter(JsonNode::asBoolean).count(), raft.toString());
        AgentProcess.await("the client learnt every server", WAIT, () -> client.json("/v1/agent/servers").size() == 3);

        // Autopilot, asked of a follower and answered by the leader: three healthy voters, one of which may fail.
        java.util.concurrent.atomic.AtomicReference<String> health = new java.util.concurrent.atomic.AtomicReference<>();
        AgentProcess.await("autopilot reports the cluster healthy", WAIT, () -> {
            try {
                var answer = follower.get("/v1/operator/autopilot/health");
                health.set(answer.body());
                return answer.statusCode() == 200;
            } catch (Exception e) {
                return false;
            }
        });
        JsonNode report = AgentProcess.JSON.readTree(health.get());
        assertEquals(1, report.get("FailureTolerance").asInt(), report.toString());
        assertEquals(3, report.get("Servers").findValues("Healthy").stream().filter(JsonNode::asBoolean).count(),
                report.toString());
        assertTrue(report.get("Servers").findValues("SerfStatus").stream().allMatch(v -> v.asText().equals("alive")),
                report.toString());

        // A snapshot asked of a follower comes from the leader through it, or from the follower itself with ?stale.
        for (String query : List.of("", "?stale")) {
            var snapshot = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(follower.address() + "/v1/operator/snapshot" + query))
                    .timeout(Duration.ofSeconds(30)).build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, snapshot.statusCode(), query);
            assertTrue(new String(snapshot.body(), 0, 18, java.nio.charset.StandardCharsets.US_ASCII)
                    .equals("caravan-snapshot 1"), query);
            assertTrue(Long.parseLong(snapshot.headers().firstValue("X-Nomad-Index").orElse("0")) > 0, query);
        }

        // A job submitted to a follower runs on the client.
        assertEquals(200, follower.putForm("/v1/jobs", job("web")).statusCode());
        // Reads are consistent by default: the job is there at once through every server, not only once replicated.
        for (AgentProcess s : servers) {
            var read = s.get("/v1/job/web");
            assertEquals(200, read.statusCode(), read.body());
            assertEquals("true", read.headers().firstValue("X-Nomad-KnownLeader").orElse(""));
        }
        assertEquals("0", leader.get("/v1/job/web?stale").headers().firstValue("X-Nomad-LastContact").orElse(""),
                "the leader is its own last contact");
        AgentProcess.await("web runs", WAIT, () -> running(follower, "web").size() == 2);
        Set<String> webAllocs = running(follower, "web");

        // The client-only agent answers any API call by forwarding it to a server: same body, same errors.
        assertEquals(webAllocs, running(client, "web"), "the client agent forwards /v1/job/web/allocations");
        var missing = client.get("/v1/job/nope");
        assertEquals(404, missing.statusCode());
        assertEquals(follower.get("/v1/job/nope").body(), missing.body());
        assertTrue(client.get("/v1/jobs").headers().firstValue("X-Nomad-Index").isPresent(), "query meta forwarded");
        assertEquals(3, client.json("/v1/agent/members").get("Members").size(), "a client agent asks a server");

        // The server that took the client's forwarded calls counts them in Nomad's /v1/metrics shape (sampled every
        // telemetry collection_interval, 1 s).
        AgentProcess.await("Agent.HTTP calls counted by a server", WAIT, () -> {
            boolean counted = false;
            for (AgentProcess s : servers) {
                for (JsonNode c : s.json("/v1/metrics").get("Counters")) {
                    counted |= c.get("Name").asText().equals("nomad.nomad.rpc.request")
                            && c.get("Labels").path("method").asText().equals("Agent.HTTP")
                            && c.get("Count").asLong() > 0;
                }
            }
            return counted;
        });

        // Any server reaches the client's allocation files through the connection the client opened (to one of them).
        String oneAlloc = webAllocs.iterator().next();
        for (AgentProcess s : servers) {
            var listing = s.get("/v1/client/fs/ls/" + oneAlloc + "?path=/");
            assertEquals(200, listing.statusCode(), listing.body());
            assertTrue(listing.body().contains("\"Name\":\"alloc\""), listing.body());
        }

        // kill -9 the leader.
        long killed = System.nanoTime();
        leader.process.destroyForcibly();
        assertTrue(leader.process.waitFor(30, TimeUnit.SECONDS));
        List<AgentProcess> rest = servers.stream().filter(s -> s != leader).toList();
        AgentProcess.await("a new leader", WAIT, () -> {
            Set<String> l = rest.stream().map(ServerFiles::leaderOf).collect(Collectors.toSet());
            return l.size() == 1 && !l.contains("") && !l.contains(leaderRpc);
        });
        var accepted = follower.putForm("/v1/jobs", job("web2"));
        long failoverMs = (System.nanoTime() - killed) / 1_000_000;
        assertEquals(200, accepted.statusCode(), accepted.body());
        System.out.println("leader kill -9 -> next write committed: " + failoverMs + " ms");
        AgentProcess survivor = rest.get(0);
        AgentProcess.await("web2 runs on the client, which failed over", WAIT,
                () -> running(survivor, "web2").size() == 2);
        assertEquals(webAllocs, running(survivor, "web"), "web's allocations kept running, none replaced");
        assertEquals("ready", survivor.json("/v1/nodes").get(0).get("Status").asText());

        // The killed server comes back with its data and rejoins.
        AgentProcess back = startServer(leaderIndex + 1, ports.get(leaderIndex), "server" + (leaderIndex + 1) + ".again.log");
        AgentProcess.await("the restarted server follows the new leader and has both jobs", WAIT, () -> {
            String l = ServerFiles.leaderOf(back);
            return !l.isEmpty() && l.equals(ServerFiles.leaderOf(survivor)) && back.json("/v1/jobs").size() == 2;
        });
        AgentProcess.await("three alive members again", WAIT, () -> survivor.json("/v1/agent/members")
                .get("Members").findValues("Status").stream().filter(s -> s.asText().equals("alive")).count() == 3);
        assertNotEquals("", ServerFiles.leaderOf(back));

        // A server with another gossip key cannot join: it says why, and the cluster never lists it.
        Ports intruder = ports.get(4);
        Files.writeString(dir.resolve("server4.hcl"),
                ServerFiles.serverConfig(dir, 4, intruder, ports.subList(0, 3),
                        ServerFiles.gossipKey()));
        AgentProcess wrongKey = startServer(4, intruder, "server4.log");
        AgentProcess.await("the server with the wrong key reports it", WAIT,
                () -> wrongKey.log().contains("wrong gossip key"));
        assertEquals(3, survivor.json("/v1/agent/members").get("Members").size(), "the intruder is not a member");
    }

    private static Set<String> running(AgentProcess a, String job) {
        Set<String> ids = new TreeSet<>();
        for (JsonNode alloc : a.json("/v1/job/" + job + "/allocations")) {
            if (alloc.get("ClientStatus").asText().equals("running")) {
                ids.add(alloc.get("ID").asText());
            }
        }
        return ids;
    }

    private static String job(String id) {
        return """
                {"Job": {"ID": "%s", "Type": "service", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                  "Count": 2, "Tasks": [{"Name": "t", "Driver": "raw_exec",
                  "Config": {"command": "/bin/sleep", "args": ["300"]}}]}]}}
                """.formatted(id);
    }
}
