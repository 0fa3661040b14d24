package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import io.caravan.distribution.ServerFiles.Ports;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Hostile input against a three-server cluster configured as the README shows it (no gossip key): a foreign payload
 * sent to {@code Raft.Apply} on the RPC port stops no server, an oversized write is a fast 413 that forces no election,
 * followers report who leads, and writes during a restart or an election either go through or answer Nomad's
 * {@code No cluster leader} within the hold time (issue 21).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostileClusterE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(90);
    /** Nomad's RPC hold timeout, plus room for a slow CI machine. */
    private static final Duration HOLD = Duration.ofSeconds(8);
    private static final ObjectMapper CBOR = new ObjectMapper(new CBORFactory());

    private final List<AgentProcess> servers = new ArrayList<>();
    private List<Ports> ports;
    private Path dir;
    private int jobs;

    @BeforeAll
    void startCluster() throws Exception {
        dir = Files.createTempDirectory("caravan-hostile-");
        ports = ServerFiles.ports(3);
        for (int i = 0; i < 3; i++) {
            Files.writeString(dir.resolve("server" + (i + 1) + ".hcl"),
                    ServerFiles.serverConfig(dir, i + 1, ports.get(i), ports, null));
            servers.add(start(i, "server" + (i + 1) + ".log"));
        }
        awaitOneLeader(servers);
    }

    @AfterAll
    void stopCluster() throws Exception {
        for (AgentProcess a : servers) {
            a.close();
        }
    }

    private AgentProcess start(int i, String log) throws Exception {
        return AgentProcess.start(dir.resolve("server" + (i + 1) + ".hcl"), dir.resolve(log), ports.get(i).http(),
                ports.get(i).rpc());
    }

    @Test
    @Order(1)
    void foreignPayloadsOnTheRpcPortStopNoServer() throws Exception {
        List<byte[]> payloads = List.of("{\"Type\":\"NoSuchCommand\",\"Command\":{}}".getBytes(StandardCharsets.UTF_8),
                new byte[] {0, 1, 2, 3},
                "{\"Type\":\"JobRegister\",\"Command\":{\"Job\":null}}".getBytes(StandardCharsets.UTF_8),
                "{\"Type\":\"NodeStatusUpdate\",\"Command\":{\"NodeID\":\"x\",\"Status\":\"bogus\"}}"
                        .getBytes(StandardCharsets.UTF_8));
        for (Ports p : ports) {
            for (byte[] payload : payloads) {
                Map<String, Object> reply = rawRpc(p.rpc(), "Raft.Apply", Map.of("Entry", payload));
                assertEquals(3, ((Number) reply.get("Kind")).intValue(), "an error reply: " + reply);
                assertEquals("BAD_REQUEST", reply.get("Code"), String.valueOf(reply));
            }
        }
        for (AgentProcess s : servers) {
            assertEquals(200, s.get("/v1/agent/health").statusCode(), s.log());
        }
        assertWritesGoThroughEveryServer();
    }

    @Test
    @Order(2)
    void anOversizedWriteIsAFast413AndForcesNoElection() throws Exception {
        String leader = awaitOneLeader(servers);
        String huge = "x".repeat(5 * 1024 * 1024);
        for (AgentProcess s : servers) {
            long start = System.nanoTime();
            HttpResponse<String> r = s.putForm("/v1/jobs", job("big", "\"Meta\": {\"blob\": \"" + huge + "\"}, "));
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertEquals(413, r.statusCode(), r.body());
            assertTrue(ms < 5000, "answered in " + ms + " ms");
        }
        Thread.sleep(2000);   // an election would have happened by now
        assertEquals(leader, awaitOneLeader(servers), "the leader stayed");
        assertEquals(404, servers.get(0).get("/v1/job/big").statusCode());
        assertWritesGoThroughEveryServer();
    }

    @Test
    @Order(3)
    void followersReportWhoLeads() throws Exception {
        String leader = awaitOneLeader(servers);
        for (int i = 0; i < 3; i++) {
            JsonNode nomad = servers.get(i).json("/v1/agent/self").path("stats").path("nomad");
            boolean leads = ports.get(i).rpcAddress().equals(leader);
            assertEquals(Boolean.toString(leads), nomad.path("leader").asText(), nomad.toString());
            assertEquals(leader, nomad.path("leader_addr").asText(), nomad.toString());
        }
    }

    @Test
    @Order(4)
    void writesDuringARestartAndAnElectionForwardOrSayNoClusterLeader() throws Exception {
        String leader = awaitOneLeader(servers);
        int leaderIndex = ServerFiles.indexOf(ports, leader);
        int followerIndex = (leaderIndex + 1) % 3;

        // A follower restarts: as soon as its HTTP port answers, writes through it forward to the leader.
        AgentProcess follower = servers.get(followerIndex);
        follower.process.destroyForcibly();
        assertTrue(follower.process.waitFor(30, TimeUnit.SECONDS));
        AgentProcess back = start(followerIndex, "server" + (followerIndex + 1) + ".again.log");
        servers.set(followerIndex, back);
        assertForwardedOrNoLeader(back, "after a restart");

        // The leader dies: writes through the survivors hold, then go through or say there is no leader.
        AgentProcess dead = servers.get(leaderIndex);
        dead.process.destroyForcibly();
        assertTrue(dead.process.waitFor(30, TimeUnit.SECONDS));
        List<AgentProcess> survivors = servers.stream().filter(s -> s != dead).toList();
        for (AgentProcess s : survivors) {
            assertForwardedOrNoLeader(s, "during an election");
        }
        servers.set(leaderIndex, start(leaderIndex, "server" + (leaderIndex + 1) + ".again.log"));
        awaitOneLeader(servers);
        assertWritesGoThroughEveryServer();
    }

    /** One write: a 200, or Nomad's 500 "No cluster leader", within the hold time; never a 404 or a Raft address. */
    private void assertForwardedOrNoLeader(AgentProcess s, String when) throws Exception {
        String id = "hold" + jobs++;
        long start = System.nanoTime();
        HttpResponse<String> r = s.putForm("/v1/jobs", job(id, ""));
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.out.println("write " + when + ": " + r.statusCode() + " " + r.body().strip() + " in " + ms + " ms");
        assertTrue(r.statusCode() == 200 || r.statusCode() == 500 && r.body().startsWith("No cluster leader"),
                when + ": " + r.statusCode() + " " + r.body());
        assertTrue(ms <= HOLD.toMillis(), when + ": answered after " + ms + " ms");
    }

    private void assertWritesGoThroughEveryServer() throws Exception {
        for (AgentProcess s : servers) {
            String id = "ok" + jobs++;
            HttpResponse<String> r = s.putForm("/v1/jobs", job(id, ""));
            assertEquals(200, r.statusCode(), r.body());
            for (AgentProcess other : servers) {
                AgentProcess.await(id + " on every server", WAIT,
                        () -> other.json("/v1/jobs").findValues("ID").stream().anyMatch(v -> v.asText().equals(id)));
            }
        }
    }

    private static String awaitOneLeader(List<AgentProcess> among) throws InterruptedException {
        AgentProcess.await("the servers agree on a leader", WAIT, () -> {
            Set<String> leaders = among.stream().map(ServerFiles::leaderOf).collect(Collectors.toSet());
            return leaders.size() == 1 && !leaders.contains("");
        });
        return ServerFiles.leaderOf(among.get(0));
    }

    /** A batch job that is never placed (no client): only its registration matters here. */
    private static String job(String id, String extra) {
        return """
                {"Job": {"ID": "%s", %s"Type": "batch", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                  "Count": 1, "Tasks": [{"Name": "t", "Driver": "raw_exec",
                  "Config": {"command": "/bin/true"}}]}]}}
                """.formatted(id, extra);
    }

    /**
     * One call on a server's RPC port as any process could make it: a WebSocket on {@code /v1/rpc} carrying a CBOR
     * envelope, without the server proof (there is no gossip key to prove).
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> rawRpc(int port, String method, Object body) throws Exception {
        Map<String, Object> envelope = new LinkedHashMap<>();
        envelope.put("Kind", 1);
        envelope.put("ID", 1);
        envelope.put("Method", method);
        envelope.put("Hops", 0);
        envelope.put("Body", CBOR.writeValueAsBytes(body));
        CompletableFuture<byte[]> reply = new CompletableFuture<>();
        WebSocket socket = HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5))
                .buildAsync(URI.create("ws://127.0.0.1:" + port + "/v1/rpc"), new WebSocket.Listener() {
                    private final ByteArrayOutputStream message = new ByteArrayOutputStream();

                    @Override
                    public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
                        byte[] chunk = new byte[data.remaining()];
                        data.get(chunk);
                        message.writeBytes(chunk);
                        if (last) {
                            reply.complete(message.toByteArray());
                        }
                        ws.request(1);
                        return null;
                    }
                }).get(10, TimeUnit.SECONDS);
        try {
            socket.sendBinary(ByteBuffer.wrap(CBOR.writeValueAsBytes(envelope)), true).get(10, TimeUnit.SECONDS);
            Map<String, Object> answer = CBOR.readValue(reply.get(HOLD.toSeconds(), TimeUnit.SECONDS), Map.class);
            assertFalse(answer.isEmpty());
            return answer;
        } finally {
            socket.abort();
        }
    }
}
