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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The "done when", on a real dev agent with {@code acl { enabled = true }}: anonymous calls are refused,
 * bootstrap gives a management token (once), a namespace-read token reads and cannot write, reload needs
 * {@code agent:write}, and bad policies and tokens get clear 4xx answers that write nothing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AclE2EIT {
    private static final String JOB = """
            {"Job": {"ID": "acl-job", "Type": "batch", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
              "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/true"}}]}]}}""";
    private static Path dir;
    private static AgentProcess agent;
    private static String management;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("caravan-acl-");
        agent = AgentProcess.startDev(dir, ", \"data_dir\": \"" + dir.resolve("data") + "\", \"acl\": {\"enabled\": "
                + "true}");
    }

    @AfterAll
    static void stop() throws Exception {
        if (agent != null) {
            agent.close();
        }
        AgentProcess.deleteTree(dir);
    }

    private static HttpResponse<String> call(String method, String path, String token, String body) throws Exception {
        return agent.call(method, path, token, body);
    }

    private static void assertStatus(int status, HttpResponse<String> response) {
        assertEquals(status, response.statusCode(), response.request().method() + " " + response.request().uri()
                + " -> " + response.body());
    }

    @Test
    @Order(1)
    void anonymousAndUnknownTokensAreRefused() throws Exception {
        assertStatus(403, call("GET", "/v1/jobs", null, null));
        HttpResponse<String> write = call("PUT", "/v1/jobs", null, JOB);
        assertStatus(403, write);
        assertEquals("Permission denied", write.body().strip());
        HttpResponse<String> bogus = call("PUT", "/v1/jobs", "2d3a6b8e-0000-4000-8000-000000000000", JOB);
        assertStatus(403, bogus);
        assertEquals("ACL token not found", bogus.body().strip());
        assertStatus(403, call("PUT", "/v1/agent/reload", null, null));
        // What must stay open: health (load balancers), the leader, regions.
        assertStatus(200, call("GET", "/v1/agent/health", null, null));
        assertStatus(200, call("GET", "/v1/status/leader", null, null));
    }

    @Test
    @Order(2)
    void bootstrapGivesOneManagementToken() throws Exception {
        HttpResponse<String> first = call("POST", "/v1/acl/bootstrap", null, null);
        assertStatus(200, first);
        JsonNode token = AgentProcess.JSON.readTree(first.body());
        assertEquals("management", token.path("Type").asText());
        management = token.path("SecretID").asText();
        assertEquals(36, management.length(), first.body());

        HttpResponse<String> second = call("POST", "/v1/acl/bootstrap", null, null);
        assertStatus(400, second);
        assertTrue(second.body().startsWith("ACL bootstrap already done (reset index: "), second.body());

        assertStatus(200, call("PUT", "/v1/jobs", management, JOB));
        assertStatus(200, call("GET", "/v1/jobs", management, null));
        HttpResponse<String> self = call("GET", "/v1/acl/token/self", management, null);
        assertStatus(200, self);
        assertEquals(token.path("AccessorID").asText(),
                AgentProcess.JSON.readTree(self.body()).path("AccessorID").asText());
        HttpResponse<String> list = call("GET", "/v1/acl/tokens", management, null);
        assertStatus(200, list);
        assertFalse(list.body().contains(management), "a token list must not show secrets: " + list.body());

        // Calls are counted per endpoint and caller (seed 001), by accessor, never by secret; /v1/metrics shows them
        // once sampled (telemetry collection_interval, 1 s).
        String accessor = "\"identity\":\"token:" + token.path("AccessorID").asText() + "\"";
        AgentProcess.await("the token's calls counted", Duration.ofSeconds(10), () -> {
            try {
                return call("GET", "/v1/metrics", null, null).body().contains(accessor);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        String metrics = call("GET", "/v1/metrics", null, null).body();
        assertTrue(metrics.contains(accessor) && metrics.contains("\"method\":\"Job.List\""), metrics);
        assertTrue(metrics.contains("\"identity\":\"anonymous\""), metrics);
        assertFalse(metrics.contains(management), metrics);
    }

    @Test
    @Order(3)
    void aNamespaceReadTokenReadsAndCannotWrite() throws Exception {
        assertStatus(200, call("PUT", "/v1/acl/policy/readonly", management,
                "{\"Name\": \"readonly\", \"Rules\": \"namespace \\\"default\\\" { policy = \\\"read\\\" }\"}"));
        HttpResponse<String> created = call("PUT", "/v1/acl/token", management,
                "{\"Name\": \"reader\", \"Type\": \"client\", \"Policies\": [\"readonly\"]}");
        assertStatus(200, created);
        String reader = AgentProcess.JSON.readTree(created.body()).path("SecretID").asText();

        assertStatus(200, call("GET", "/v1/jobs", reader, null));
        assertStatus(200, call("GET", "/v1/job/acl-job", reader, null));
        assertStatus(403, call("PUT", "/v1/jobs", reader, JOB));
        assertStatus(403, call("DELETE", "/v1/job/acl-job", reader, null));
        assertStatus(403, call("GET", "/v1/jobs?namespace=other", reader, null));
        assertStatus(403, call("GET", "/v1/acl/tokens", reader, null));
        assertStatus(403, call("PUT", "/v1/agent/reload", reader, null));
    }

    @Test
    @Order(4)
    void reloadNeedsAgentWrite() throws Exception {
        assertStatus(200, call("PUT", "/v1/acl/policy/operator", management,
                "{\"Rules\": \"agent { policy = \\\"write\\\" }\"}"));
        HttpResponse<String> created = call("PUT", "/v1/acl/token", management,
                "{\"Name\": \"ops\", \"Type\": \"client\", \"Policies\": [\"operator\"]}");
        String ops = AgentProcess.JSON.readTree(created.body()).path("SecretID").asText();
        assertStatus(200, call("PUT", "/v1/agent/reload", ops, null));
        assertStatus(403, call("GET", "/v1/jobs", ops, null));
        assertStatus(200, call("PUT", "/v1/agent/reload", management, null));
    }

    @Test
    @Order(5)
    void badPoliciesAndTokensAreClear400sThatWriteNothing() throws Exception {
        HttpResponse<String> badPolicy = call("PUT", "/v1/acl/policy/bad", management,
                "{\"Rules\": \"namespace \\\"default\\\" {\\n  capabilities = [\\\"reed-job\\\"]\\n}\"}");
        assertStatus(400, badPolicy);
        assertTrue(badPolicy.body().contains("reed-job") && badPolicy.body().matches("(?s).*\\d+:\\d+.*"),
                badPolicy.body());
        assertStatus(404, call("GET", "/v1/acl/policy/bad", management, null));

        HttpResponse<String> noPolicy = call("PUT", "/v1/acl/token", management,
                "{\"Name\": \"x\", \"Type\": \"client\", \"Policies\": [\"no-such-policy\"]}");
        assertStatus(400, noPolicy);
        assertTrue(noPolicy.body().contains("no-such-policy"), noPolicy.body());
        HttpResponse<String> tooShort = call("PUT", "/v1/acl/token", management,
                "{\"Name\": \"x\", \"Type\": \"client\", \"Policies\": [\"readonly\"], \"ExpirationTTL\": 1000000}");
        assertStatus(400, tooShort);
        assertTrue(tooShort.body().contains("expiration time cannot be less than 1m0s"), tooShort.body());
        JsonNode tokens = AgentProcess.JSON.readTree(call("GET", "/v1/acl/tokens", management, null).body());
        assertEquals(3, tokens.size(), tokens.toString());   // bootstrap, reader, ops
    }

    /** The CLI against the real agent: policy apply and token create with a management token, then token self. */
    @Test
    @Order(7)
    void theCliManagesPoliciesAndTokens() throws Exception {
        Path rules = dir.resolve("ops.hcl");
        Files.writeString(rules, "node {\n  policy = \"read\"\n}\n");
        String apply = cli("acl", "policy", "apply", "-token", management, "-description", "Node readers",
                "node-read", rules.toString());
        assertTrue(apply.contains("Successfully wrote \"node-read\" ACL policy!"), apply);
        String created = cli("acl", "token", "create", "-token", management, "-name", "cli-token", "-policy",
                "node-read");
        assertTrue(created.contains("cli-token") && created.contains("node-read"), created);
        String secret = created.lines().filter(l -> l.startsWith("Secret ID")).findFirst().orElseThrow()
                .replaceAll(".*=\\s*", "").trim();
        assertStatus(200, call("GET", "/v1/nodes", secret, null));
        assertStatus(403, call("GET", "/v1/jobs", secret, null));
        String self = cli("acl", "token", "self", "-token", secret);
        assertTrue(self.contains("cli-token"), self);
    }

    private static String cli(String... args) throws Exception {
        Path out = Files.createTempFile(dir, "cli-", ".out");
        Process p = AgentProcess.run(out, withAddress(args));
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the CLI finishes");
        String text = Files.readString(out);
        assertEquals(0, p.exitValue(), text);
        return text;
    }

    /** The command's words, then {@code -address} of the agent before its other flags. */
    private static String[] withAddress(String[] args) {
        List<String> out = new ArrayList<>();
        int words = 0;
        while (words < args.length && !args[words].startsWith("-")) {
            out.add(args[words++]);
        }
        out.add("-address=" + agent.address());
        out.addAll(List.of(args).subList(words, args.length));
        return out.toArray(String[]::new);
    }

    @Test
    @Order(6)
    void whoAmIAndRoles() throws Exception {
        HttpResponse<String> role = call("POST", "/v1/acl/role", management,
                "{\"Name\": \"readers\", \"Policies\": [{\"Name\": \"readonly\"}]}");
        assertStatus(200, role);
        String roleId = AgentProcess.JSON.readTree(role.body()).path("ID").asText();
        HttpResponse<String> created = call("PUT", "/v1/acl/token", management,
                "{\"Name\": \"by-role\", \"Type\": \"client\", \"Roles\": [{\"Name\": \"readers\"}]}");
        assertStatus(200, created);
        JsonNode token = AgentProcess.JSON.readTree(created.body());
        assertEquals(roleId, token.path("Roles").path(0).path("ID").asText(), created.body());
        String secret = token.path("SecretID").asText();
        assertStatus(200, call("GET", "/v1/jobs", secret, null));
        assertStatus(403, call("PUT", "/v1/jobs", secret, JOB));

        HttpResponse<String> who = call("GET", "/v1/acl/whoami", secret, null);
        assertStatus(200, who);
        assertEquals(token.path("AccessorID").asText(),
                AgentProcess.JSON.readTree(who.body()).path("Identity").path("ACLToken").path("AccessorID").asText(),
                who.body());
    }
}
