package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.distribution.ServerFiles.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * ACLs on a three-server cluster (each server's file has {@code acl { enabled = true }}): the ACL tables replicate
 * through Raft, so a bootstrap on one server, a policy and token created on another, are enforced on the third, and
 * tokens outlive the loss of the leader.
 */
class AclClusterE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String JOB = """
            {"Job": {"ID": "%s", "Type": "batch", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
              "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/true"}}]}]}}""";

    private final List<AgentProcess> servers = new ArrayList<>();
    private Path dir;

    @AfterEach
    void stop() throws Exception {
        for (AgentProcess a : servers) {
            a.close();
        }
        AgentProcess.deleteTree(dir);
    }

    private static void assertStatus(int status, HttpResponse<String> response) {
        assertEquals(status, response.statusCode(), response.request().method() + " " + response.request().uri()
                + " -> " + response.body());
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        assertStatus(200, response);
        return AgentProcess.JSON.readTree(response.body());
    }

    private static void awaitStatus(int status, AgentProcess server, String path, String token)
            throws InterruptedException {
        AgentProcess.await("GET " + path + " answers " + status + " on " + server.address(), WAIT, () -> {
            try {
                return server.call("GET", path, token, null).statusCode() == status;
            } catch (Exception e) {
                return false;
            }
        });
    }

    /** Waits until {@code server} has applied the write that made {@code token} (reads are served locally). */
    private static void awaitToken(AgentProcess server, String token) throws InterruptedException {
        AgentProcess.await("the token has reached " + server.address(), WAIT, () -> {
            try {
                return server.call("GET", "/v1/acl/token/self", token, null).statusCode() == 200;
            } catch (Exception e) {
                return false;
            }
        });
    }

    @Test
    void aclsReplicateAcrossServersAndSurviveTheLossOfTheLeader() throws Exception {
        dir = Files.createTempDirectory("caravan-acl-cluster-");
        List<Ports> ports = ServerFiles.ports(3);
        for (int i = 0; i < 3; i++) {
            Path file = dir.resolve("server" + (i + 1) + ".hcl");
            Files.writeString(file, ServerFiles.serverConfig(dir, i + 1, ports.get(i), ports, null)
                    + "acl {\n  enabled = true\n}\n");
            servers.add(AgentProcess.start(file, dir.resolve("server" + (i + 1) + ".log"), ports.get(i).http(),
                    ports.get(i).rpc()));
        }
        AgentProcess.await("the three servers agree on a leader", WAIT, () -> {
            Set<String> leaders = servers.stream().map(ServerFiles::leaderOf).collect(Collectors.toSet());
            return leaders.size() == 1 && !leaders.contains("");
        });
        AgentProcess first = servers.get(0);
        AgentProcess second = servers.get(1);
        AgentProcess third = servers.get(2);

        // Bootstrap on the first server; the second refuses another bootstrap, since it has the first's.
        JsonNode bootstrap = json(first.call("POST", "/v1/acl/bootstrap", null, null));
        String management = bootstrap.path("SecretID").asText();
        awaitToken(second, management);
        HttpResponse<String> again = second.call("POST", "/v1/acl/bootstrap", null, null);
        assertStatus(400, again);
        assertTrue(again.body().startsWith("ACL bootstrap already done"), again.body());

        // A policy and tokens made on the second server.
        assertStatus(200, second.call("PUT", "/v1/acl/policy/readonly", management,
                "{\"Rules\": \"namespace \\\"default\\\" { policy = \\\"read\\\" }\"}"));
        String reader = json(second.call("PUT", "/v1/acl/token", management,
                "{\"Name\": \"reader\", \"Type\": \"client\", \"Policies\": [\"readonly\"]}"))
                .path("SecretID").asText();
        String operator = json(second.call("PUT", "/v1/acl/token", management,
                "{\"Name\": \"operator\", \"Type\": \"management\"}")).path("SecretID").asText();

        // ... are enforced on the third.
        awaitToken(third, reader);
        awaitToken(third, operator);
        assertStatus(200, third.call("GET", "/v1/jobs", reader, null));
        assertStatus(403, third.call("PUT", "/v1/jobs", reader, JOB.formatted("by-reader")));
        assertStatus(403, third.call("GET", "/v1/acl/tokens", reader, null));
        assertStatus(403, third.call("GET", "/v1/jobs", null, null));
        assertEquals("ACL token not found", third.call("GET", "/v1/jobs",
                "2d3a6b8e-0000-4000-8000-000000000000", null).body().strip());
        assertStatus(200, third.call("PUT", "/v1/jobs", operator, JOB.formatted("before")));
        assertEquals(3, json(third.call("GET", "/v1/acl/tokens", operator, null)).size());

        // kill -9 the leader: the tokens made before still work on the others, for reads and writes.
        String leaderRpc = ServerFiles.leaderOf(first);
        AgentProcess leader = servers.get(ServerFiles.indexOf(ports, leaderRpc));
        leader.process.destroyForcibly();
        assertTrue(leader.process.waitFor(30, TimeUnit.SECONDS));
        List<AgentProcess> rest = servers.stream().filter(s -> s != leader).toList();
        AgentProcess.await("a new leader", WAIT, () -> {
            Set<String> l = rest.stream().map(ServerFiles::leaderOf).collect(Collectors.toSet());
            return l.size() == 1 && !l.contains("") && !l.contains(leaderRpc);
        });
        for (AgentProcess s : rest) {
            assertStatus(200, s.call("GET", "/v1/jobs", reader, null));
            assertStatus(403, s.call("PUT", "/v1/jobs", reader, JOB.formatted("by-reader")));
            // Reads are served from each server's own state, which applies the log a moment after the commit.
            awaitStatus(200, s, "/v1/job/before", operator);
            assertStatus(200, s.call("PUT", "/v1/jobs", operator, JOB.formatted("after-" + servers.indexOf(s))));
        }
        AgentProcess survivor = rest.get(0);
        // A write through the new leader: a token made now works on the other survivor too.
        String late = json(survivor.call("PUT", "/v1/acl/token", operator,
                "{\"Name\": \"late\", \"Type\": \"client\", \"Policies\": [\"readonly\"]}")).path("SecretID").asText();
        awaitToken(rest.get(1), late);
        assertStatus(200, rest.get(1).call("GET", "/v1/jobs", late, null));
        assertEquals(3, json(rest.get(1).call("GET", "/v1/jobs", late, null)).size(), "before, after-*, after-*");
    }
}
