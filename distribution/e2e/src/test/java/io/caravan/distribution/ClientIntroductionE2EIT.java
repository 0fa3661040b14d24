package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Seed 003's client introduction over real processes: one server whose {@code client_introduction.enforcement} a
 * reload moves from {@code none} to {@code warn} to {@code strict}, and at each level four brand-new client agents —
 * without a token, with an expired one, with one bound to another node name, with a valid one (given by
 * {@code client.intro_token}, {@code <state_dir>/intro_token.jwt} and {@code -client-intro-token} in turn). Asserted:
 * which nodes the server lists, the server's log lines and {@code nomad.client.introduction_violation_num}, the
 * refusal in a refused client's log, the node identity a registered client keeps, and that no token is logged.
 */
class ClientIntroductionE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String VIOLATIONS = "nomad.client.introduction_violation_num";
    private static Path dir;
    private static AgentProcess server;
    private static ServerFiles.Ports serverPorts;
    private final List<AgentProcess> clients = new ArrayList<>();

    @BeforeAll
    static void startServer() throws Exception {
        dir = Files.createTempDirectory("caravan-intro-");
        serverPorts = ServerFiles.ports(1).get(0);
        writeServerConfig("none");
        server = AgentProcess.start(dir.resolve("server.hcl"), dir.resolve("server.log"), serverPorts.http(),
                serverPorts.rpc());
        AgentProcess.await("the server leads", WAIT, () -> !ServerFiles.leaderOf(server).isEmpty());
        AgentProcess.await("the keyring signs introduction tokens", WAIT, () -> {
            try {
                return createToken("{}").statusCode() == 200;
            } catch (Exception e) {
                return false;
            }
        });
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
        AgentProcess.deleteTree(dir);
    }

    private static void writeServerConfig(String enforcement) throws Exception {
        Files.writeString(dir.resolve("server.hcl"), ServerFiles.agentConfig(dir, "server1", serverPorts) + """
                server {
                  enabled          = true
                  bootstrap_expect = 1
                  client_introduction {
                    enforcement = "%s"
                  }
                }
                """.formatted(enforcement));
    }

    private static HttpResponse<String> createToken(String body) throws Exception {
        return server.call("PUT", "/v1/acl/identity/client-introduction-token", null, body);
    }

    private static String token(String body) throws Exception {
        HttpResponse<String> r = createToken(body);
        assertEquals(200, r.statusCode(), r.body());
        return AgentProcess.JSON.readTree(r.body()).path("JWT").asText();
    }

    /** How a client gets its token. */
    private enum Source { CONFIG, FILE, FLAG }

    /** A brand-new client agent named {@code name}, presenting {@code token} (null: none) from {@code source}. */
    private AgentProcess startClient(String name, String token, Source source) throws Exception {
        ServerFiles.Ports own = ServerFiles.ports(1).get(0);
        String introToken = token != null && source == Source.CONFIG ? "  intro_token = \"" + token + "\"\n" : "";
        Path config = dir.resolve(name + ".hcl");
        Files.writeString(config, ServerFiles.agentConfig(dir, name, own) + """
                client {
                  enabled = true
                  servers = ["%s"]
                %s}
                """.formatted(serverPorts.rpcAddress(), introToken));
        if (token != null && source == Source.FILE) {
            Path stateDir = dir.resolve(name).resolve("client");
            Files.createDirectories(stateDir);
            Files.writeString(stateDir.resolve("intro_token.jwt"), token + "\n");
        }
        String[] flags = token != null && source == Source.FLAG ? new String[] {"-client-intro-token", token}
                : new String[0];
        AgentProcess client = AgentProcess.launch(config, dir.resolve(name + ".log"), own.http(), own.rpc(), flags);
        clients.add(client);
        return client;
    }

    private void stopClients() throws Exception {
        for (AgentProcess c : clients) {
            c.close();
        }
        clients.clear();
    }

    private static List<String> nodeNames() {
        List<String> names = new ArrayList<>();
        server.json("/v1/nodes").forEach(n -> names.add(n.path("Name").asText()));
        return names;
    }

    private static long violations() {
        long n = 0;
        for (JsonNode c : server.json("/v1/metrics").path("Counters")) {
            if (VIOLATIONS.equals(c.path("Name").asText())) {
                n += c.path("Count").asLong();
            }
        }
        return n;
    }

    /** Reloads the server into {@code enforcement}; the report lists the key as applied live. */
    private static void reloadInto(String enforcement) throws Exception {
        writeServerConfig(enforcement);
        HttpResponse<String> reload = server.put("/v1/agent/reload");
        assertEquals(200, reload.statusCode(), reload.body());
        JsonNode report = AgentProcess.JSON.readTree(reload.body());
        assertEquals("[\"server.client_introduction.enforcement\"]", report.path("Applied").toString(),
                reload.body());
        AgentProcess.await("the server logs the new enforcement level", WAIT, () -> server.log()
                .contains("client introduction enforcement changed: enforcement=" + enforcement));
        assertFalse(server.log().contains("Leader duties stopped"), "the reload restarted Raft: " + server.log());
    }

    /**
     * Starts the four clients of one level; their tokens: none, expired, bound to another name, valid. The expired
     * one lives a second and is past its {@code exp} before its client starts.
     */
    private Map<String, AgentProcess> startMatrix(String level, Source validFrom) throws Exception {
        String expired = token("{\"TTL\": \"1s\"}");
        String wrongName = token("{\"NodeName\": \"somebody-else\"}");
        String valid = token("{\"NodeName\": \"" + level + "-valid\"}");
        Thread.sleep(2100);
        Map<String, AgentProcess> started = new LinkedHashMap<>();
        started.put(level + "-none", startClient(level + "-none", null, Source.CONFIG));
        started.put(level + "-expired", startClient(level + "-expired", expired, Source.CONFIG));
        started.put(level + "-wrongname", startClient(level + "-wrongname", wrongName, Source.CONFIG));
        started.put(level + "-valid", startClient(level + "-valid", valid, validFrom));
        for (String t : List.of(expired, wrongName, valid)) {
            tokensToHide.add(t);
        }
        return started;
    }

    private final List<String> tokensToHide = new ArrayList<>();

    private void awaitNodes(List<String> names) throws InterruptedException {
        AgentProcess.await("nodes " + names + " registered", WAIT, () -> nodeNames().containsAll(names));
    }

    private void assertNoTokenLogged(Map<String, AgentProcess> started) {
        for (String t : tokensToHide) {
            assertFalse(server.log().contains(t), "the server log holds a token");
            started.values().forEach(c -> assertFalse(c.log().contains(t), "a client log holds its token"));
        }
    }

    /** The server's log line for {@code node} ({@code [WARN]} or {@code [ERROR]} and Nomad's message). */
    private static boolean serverLogged(String level, String message, String node) {
        return server.log().lines().anyMatch(l -> l.contains("[" + level + "]") && l.contains(message)
                && l.contains("node_name=" + node));
    }

    @Test
    void eachEnforcementLevelAdmitsWhatNomadsDoes() throws Exception {
        try {
            // none: every node registers, nothing is counted or logged.
            Map<String, AgentProcess> none = startMatrix("none", Source.CONFIG);
            awaitNodes(List.copyOf(none.keySet()));
            assertEquals(0, violations());
            assertFalse(server.log().contains("node registration without introduction token"), server.log());
            Path identity = dir.resolve("none-valid").resolve("client").resolve("registration.json");
            AgentProcess.await("the registered client keeps its node identity", WAIT, () -> Files.exists(identity));
            JsonNode registration = AgentProcess.JSON.readTree(identity.toFile());
            assertTrue(registration.path("HasRegistered").asBoolean(), registration.toString());
            assertEquals(3, registration.path("SignedIdentity").asText().split("\\.").length,
                    "the node identity is a JWT");
            assertNoTokenLogged(none);
            String self = none.get("none-valid").get("/v1/agent/self").body();
            assertTrue(self.contains("\"IntroToken\":\"<redacted>\""), self);
            tokensToHide.forEach(t -> assertFalse(self.contains(t), "/v1/agent/self shows the token"));
            stopClients();

            // warn: every node registers; each one without a valid token is counted and logged at WARN.
            reloadInto("warn");
            Map<String, AgentProcess> warn = startMatrix("warn", Source.FILE);
            awaitNodes(List.copyOf(warn.keySet()));
            AgentProcess.await("three violations counted", WAIT, () -> violations() == 3);
            assertTrue(serverLogged("WARN", "node registration without introduction token", "warn-none"),
                    server.log());
            assertTrue(serverLogged("WARN", "node registration introduction authentication failure",
                    "warn-expired"), server.log());
            assertTrue(serverLogged("WARN", "node registration introduction claims mismatch", "warn-wrongname"),
                    server.log());
            assertFalse(server.log().contains("node_name=warn-valid"), server.log());
            assertNoTokenLogged(warn);
            stopClients();

            // strict: only the valid token registers; the others are refused, say why, and keep retrying.
            reloadInto("strict");
            Map<String, AgentProcess> strict = startMatrix("strict", Source.FLAG);
            awaitNodes(List.of("strict-valid"));
            for (String refused : List.of("strict-none", "strict-expired", "strict-wrongname")) {
                AgentProcess client = strict.get(refused);
                AgentProcess.await(refused + " logs its refusal twice (it retries)", WAIT, () -> client.log().lines()
                        .filter(l -> l.contains("node registration failed") && l.contains("Permission denied"))
                        .count() >= 2);
            }
            assertTrue(strict.get("strict-none").log().contains("node registration without introduction token"),
                    strict.get("strict-none").log());
            assertTrue(strict.get("strict-expired").log().contains("token expired"), strict.get("strict-expired").log());
            assertTrue(strict.get("strict-wrongname").log().contains("token is for node somebody-else, not "
                    + "strict-wrongname"), strict.get("strict-wrongname").log());
            assertTrue(serverLogged("ERROR", "node registration without introduction token", "strict-none"),
                    server.log());
            assertTrue(serverLogged("ERROR", "node registration introduction authentication failure",
                    "strict-expired"), server.log());
            assertTrue(serverLogged("ERROR", "node registration introduction claims mismatch", "strict-wrongname"),
                    server.log());
            List<String> names = nodeNames();
            for (String refused : List.of("strict-none", "strict-expired", "strict-wrongname")) {
                assertFalse(names.contains(refused), refused + " registered: " + names);
            }
            // (/v1/metrics shows the last telemetry sample: up to collection_interval old)
            AgentProcess.await("each refused attempt counted", WAIT, () -> violations() >= 6);
            assertNoTokenLogged(strict);
        } finally {
            stopClients();
        }
    }
}
