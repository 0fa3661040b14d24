package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The enforcement matrix, generated from what the agent itself says it serves ({@code GET /v1/agent/endpoints}):
 * every route × {anonymous, unknown token, a token without the capability, a token with exactly the policy the rule
 * names, management} on a real agent with ACLs on. A route whose handler does not honour its declared rule, or a new
 * route, is covered without editing this test; a route cannot be declared without a rule (the API requires one).
 */
class AclMatrixE2EIT {
    private static Path dir;
    private static AgentProcess agent;
    private static String management;
    private static String unrelated;
    private static final Map<String, String> tokenByPolicy = new HashMap<>();

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("caravan-acl-matrix-");
        agent = AgentProcess.startDev(dir, ", \"data_dir\": \"" + dir.resolve("data") + "\", \"acl\": {\"enabled\": "
                + "true}");
        HttpResponse<String> bootstrap = agent.call("POST", "/v1/acl/bootstrap", null, null);
        assertEquals(200, bootstrap.statusCode(), bootstrap.body());
        management = AgentProcess.JSON.readTree(bootstrap.body()).path("SecretID").asText();
        unrelated = tokenWith("namespace \"unrelated\" { policy = \"read\" }");
    }

    @AfterAll
    static void stop() throws Exception {
        if (agent != null) {
            agent.close();
        }
        AgentProcess.deleteTree(dir);
    }

    /** A client token holding one policy with these rules (one token per distinct policy). */
    private static String tokenWith(String rules) throws Exception {
        String existing = tokenByPolicy.get(rules);
        if (existing != null) {
            return existing;
        }
        String secret = agent.tokenWith(management, "matrix-" + tokenByPolicy.size(), rules);
        tokenByPolicy.put(rules, secret);
        return secret;
    }

    /** A concrete path for a pattern: each parameter becomes a value that names nothing that exists. */
    private static String concrete(String pattern) {
        List<String> segments = new ArrayList<>();
        for (String segment : pattern.split("/", -1)) {
            segments.add(segment.startsWith("{") ? URLEncoder.encode("matrix-" + segment.replaceAll("[{}*]", ""),
                    StandardCharsets.UTF_8) : segment);
        }
        return String.join("/", segments);
    }

    @Test
    void everyEndpointEnforcesItsDeclaredRule() throws Exception {
        HttpResponse<String> listing = agent.call("GET", "/v1/agent/endpoints", management, null);
        assertEquals(200, listing.statusCode(), listing.body());
        JsonNode routes = AgentProcess.JSON.readTree(listing.body());
        assertTrue(routes.size() >= 60, "the agent serves at least 60 routes: " + routes.size());
        assertEquals(403, agent.call("GET", "/v1/agent/endpoints", unrelated, null).statusCode());

        List<String> failures = new ArrayList<>();
        int checked = 0;
        for (JsonNode route : routes) {
            try {
                check(route, failures);
            } catch (java.io.IOException e) {
                failures.add(route + ": " + e + "\n" + agent.log().lines().skip(Math.max(0,
                        agent.log().lines().count() - 20)).reduce("", (a, b) -> a + "\n" + b));
                break;
            }
            checked++;
        }
        assertTrue(failures.isEmpty(), checked + " routes checked; these do not enforce their rule:\n"
                + String.join("\n", failures));
    }

    private static void check(JsonNode route, List<String> failures) throws Exception {
        {
            String method = route.path("Method").asText();
            String path = concrete(route.path("Path").asText());
            String rule = route.path("Rule").asText();
            String what = method + " " + path + " (" + route.path("Endpoint").asText() + ", " + rule + ")";
            String body = method.equals("GET") || method.equals("DELETE") ? null : "{}";
            boolean open = rule.equals("public");

            int anonymous = agent.status(method, path, null, body);
            if (open == (anonymous == 403)) {
                failures.add(what + ": anonymous got " + anonymous);
            }
            int unknown = agent.status(method, path, "00000000-0000-4000-8000-000000000000", body);
            if (unknown != 403) {
                failures.add(what + ": an unknown token got " + unknown);
            }
            int without = agent.status(method, path, unrelated, body);
            boolean anyToken = open || rule.equals("authenticated");
            if (anyToken == (without == 403)) {
                failures.add(what + ": a token without the capability got " + without);
            }
            if (route.hasNonNull("GrantingPolicy")) {
                int with = agent.status(method, path, tokenWith(route.path("GrantingPolicy").asText()), body);
                if (with == 403) {
                    failures.add(what + ": a token with " + route.path("GrantingPolicy").asText() + " got 403");
                }
            }
            int all = agent.status(method, path, management, body);
            if (all == 403) {
                failures.add(what + ": management got 403");
            }
        }
    }

    @Test
    void aBearerTokenIsAnAclToken() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(agent.address() + "/v1/jobs"))
                .header("Authorization", "Bearer " + management).build();
        HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
    }
}
