package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The web console describes Caravan, on real dev agents: our configuration PIDs are Metatype forms, the DS
 * Components page lists our components, the Caravan page shows the leader, peers, node and drivers; with ACLs on the
 * console takes a management token (none: 401, a client token: 403, the console's own login: 403) whatever the
 * spelling of its path; and a one-time token is exchanged for its ACL token exactly once.
 */
class ConsoleE2EIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static Path dir;
    private static AgentProcess open;
    private static AgentProcess acl;
    private static String management;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("caravan-console-");
        Files.createDirectories(dir.resolve("open"));
        Files.createDirectories(dir.resolve("acl"));
        open = AgentProcess.startDev(dir.resolve("open"), "");
        acl = AgentProcess.startDev(dir.resolve("acl"), ", \"acl\": {\"enabled\": true}");
        HttpResponse<String> bootstrap = acl.call("POST", "/v1/acl/bootstrap", null, null);
        assertStatus(200, bootstrap);
        management = AgentProcess.JSON.readTree(bootstrap.body()).path("SecretID").asText();
    }

    @AfterAll
    static void stop() throws Exception {
        try {
            if (open != null) {
                open.close();
            }
        } finally {
            if (acl != null) {
                acl.close();
            }
            AgentProcess.deleteTree(dir);
        }
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** GET with an {@code Authorization} header (null: none). */
    private static HttpResponse<String> get(AgentProcess agent, String path, String authorization) throws Exception {
        return send(agent, "GET", path, authorization);
    }

    private static HttpResponse<String> send(AgentProcess agent, String method, String path, String authorization)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agent.http + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(20));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertStatus(int status, HttpResponse<String> response) {
        assertEquals(status, response.statusCode(), response.request().uri() + " -> " + response.body());
    }

    @Test
    void metatypeMakesOurConfigurationsForms() throws Exception {
        HttpResponse<String> config = get(open, "/ui/console/configMgr", basic("admin", "admin"));
        assertStatus(200, config);
        // The page's own data: the console shows "Metatype service is missing" when this is false.
        assertTrue(config.body().contains("\"metatype\":true"), "the Metatype service is there: " + config.body());
        for (String ocd : List.of("\"name\":\"Caravan HTTP API\"", "\"name\":\"Caravan agent\"",
                "\"name\":\"Caravan client\"", "\"name\":\"Caravan server: client introduction\"")) {
            assertTrue(config.body().contains(ocd), ocd + " is not a form: " + config.body());
        }
        // The form's definition, as the console's page asks for it.
        HttpResponse<String> http = send(open, "POST", "/ui/console/configMgr/io.caravan.http",
                basic("admin", "admin"));
        assertStatus(200, http);
        JsonNode form = AgentProcess.JSON.readTree(http.body());
        assertEquals("Caravan HTTP API", form.path("title").asText(), http.body());
        assertEquals("Console allow remote", form.path("properties").path("console.allow.remote").path("name")
                .asText(), http.body());
    }

    /** The keys a PID holds, from the console's configuration status printout. */
    private static java.util.Set<String> storedKeys(String pid) throws Exception {
        String status = get(open, "/ui/console/status-Configurations.txt", basic("admin", "admin")).body();
        int start = status.indexOf("PID = " + pid + "\n");
        assertTrue(start >= 0, status);
        java.util.Set<String> keys = new java.util.TreeSet<>();
        for (String line : status.substring(start).split("\n", -1)) {
            if (line.isEmpty()) {
                break;
            }
            if (line.startsWith("  ") && line.contains(" = ")) {
                keys.add(line.substring(2, line.indexOf(" = ")));
            }
        }
        return keys;
    }

    @Test
    void savingAFormKeepsTheKeysItDoesNotShow() throws Exception {
        // io.caravan.client's form (the client component's definition) does not name "enabled" or "plugin.dir".
        java.util.Set<String> before = storedKeys("io.caravan.client");
        assertTrue(before.containsAll(List.of("enabled", "plugin.dir")), before.toString());
        JsonNode form = AgentProcess.JSON.readTree(send(open, "POST", "/ui/console/configMgr/io.caravan.client",
                basic("admin", "admin")).body()).path("properties");
        assertFalse(form.has("enabled"), form.toString());
        // Save it as the console's page does: every field of the form, as it shows it.
        List<String> fields = new ArrayList<>();
        StringBuilder body = new StringBuilder("apply=true&action=ajaxConfigManager");
        form.fields().forEachRemaining(field -> {
            fields.add(field.getKey());
            JsonNode values = field.getValue().has("values") ? field.getValue().path("values")
                    : AgentProcess.JSON.createArrayNode().add(field.getValue().path("value"));
            values.forEach(v -> body.append('&').append(encode(field.getKey())).append('=').append(encode(v.asText())));
        });
        body.append("&propertylist=").append(encode(String.join(",", fields)));
        HttpResponse<String> saved = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + open.http
                        + "/ui/console/configMgr/io.caravan.client"))
                .header("Authorization", basic("admin", "admin"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(saved.statusCode() == 200 || saved.statusCode() == 302, saved.statusCode() + " " + saved.body());
        // Every key stays (the form adds the ones it shows at their defaults; the console clears the location).
        before.remove("BundleLocation");
        java.util.Set<String> after = storedKeys("io.caravan.client");
        assertTrue(after.containsAll(before), before + " -> " + after);
    }

    private static String encode(String s) {
        return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Test
    void theComponentsPageListsOurComponents() throws Exception {
        HttpResponse<String> components = get(open, "/ui/console/components", basic("admin", "admin"));
        assertStatus(200, components);
        HttpResponse<String> json = get(open, "/ui/console/components.json", basic("admin", "admin"));
        assertStatus(200, json);
        assertTrue(json.body().contains("io.caravan.http.internal.ApiServlet"), json.body());
        assertTrue(json.body().contains("io.caravan.console.internal.CaravanConsolePlugin"), json.body());
    }

    @Test
    void theCaravanPageShowsTheAgentTheLeaderAndTheDrivers() throws Exception {
        assertStatus(200, open.call("PUT", "/v1/agent/reload", null, null));
        HttpResponse<String> page = get(open, "/ui/console/caravan", basic("admin", "admin"));
        assertStatus(200, page);
        assertTrue(page.body().contains("Raft peers") && page.body().contains("raw_exec"), page.body());

        JsonNode view = AgentProcess.JSON.readTree(get(open, "/ui/console/caravan.json", basic("admin", "admin"))
                .body());
        assertEquals("server+client", view.path("Agent").path("Role").asText(), view.toString());
        assertEquals("global", view.path("Agent").path("Region").asText());
        assertFalse(view.path("Leader").asText().isEmpty(), view.toString());
        assertEquals(1, view.path("Peers").size(), view.toString());
        assertTrue(view.path("Peers").get(0).path("Leader").asBoolean(), view.toString());
        assertEquals("ready", view.path("Node").path("Status").asText(), view.toString());
        assertEquals("eligible", view.path("Node").path("SchedulingEligibility").asText(), view.toString());
        List<String> healthy = new ArrayList<>();
        view.path("Drivers").forEach(d -> {
            if (d.path("Healthy").asBoolean()) {
                healthy.add(d.path("Name").asText());
            }
        });
        assertTrue(healthy.contains("raw_exec"), view.toString());
        assertTrue(view.path("Fingerprinters").size() > 0, view.toString());
        assertFalse(view.path("LastReload").isNull() || view.path("LastReload").isMissingNode(), view.toString());
        assertTrue(view.path("Problems").isEmpty(), view.toString());
    }

    @Test
    void withAclsTheConsoleTakesAManagementTokenOnly() throws Exception {
        assertStatus(200, acl.call("PUT", "/v1/acl/policy/reader", management,
                "{\"Name\": \"reader\", \"Rules\": \"namespace \\\"default\\\" { policy = \\\"read\\\" }\"}"));
        HttpResponse<String> created = acl.call("PUT", "/v1/acl/token", management,
                "{\"Name\": \"reader\", \"Type\": \"client\", \"Policies\": [\"reader\"]}");
        assertStatus(200, created);
        String client = AgentProcess.JSON.readTree(created.body()).path("SecretID").asText();

        for (String path : List.of("/ui/console/bundles", "/ui/%63onsole/bundles", "/ui/./console/bundles",
                "/ui/console/caravan.json", "/ui/console/configMgr")) {
            HttpResponse<String> none = get(acl, path, null);
            assertStatus(401, none);
            assertTrue(none.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic"), path);
            assertStatus(403, get(acl, path, basic("anyone", client)));
            assertStatus(403, get(acl, path, basic("admin", "admin")));
            assertStatus(403, get(acl, path, "Bearer 00000000-0000-4000-8000-000000000000"));
        }
        assertStatus(200, get(acl, "/ui/console/bundles", basic("anyone", management)));
        assertStatus(200, get(acl, "/ui/console/bundles", "Bearer " + management));
        JsonNode view = AgentProcess.JSON.readTree(get(acl, "/ui/console/caravan.json", basic("ops", management))
                .body());
        assertTrue(view.path("Problems").isEmpty(), "the page reads the API with the caller's token: " + view);
        assertEquals(1, view.path("Peers").size(), view.toString());
    }

    @Test
    void aOneTimeTokenIsExchangedOnce() throws Exception {
        assertStatus(403, acl.call("POST", "/v1/acl/token/onetime", null, null));
        HttpResponse<String> ott = acl.call("POST", "/v1/acl/token/onetime", management, null);
        assertStatus(200, ott);
        JsonNode one = AgentProcess.JSON.readTree(ott.body()).path("OneTimeToken");
        assertEquals(36, one.path("OneTimeSecretID").asText().length(), ott.body());
        String body = "{\"OneTimeSecretID\": \"" + one.path("OneTimeSecretID").asText() + "\"}";
        HttpResponse<String> exchanged = acl.call("POST", "/v1/acl/token/onetime/exchange", null, body);
        assertStatus(200, exchanged);
        assertEquals(management, AgentProcess.JSON.readTree(exchanged.body()).path("Token").path("SecretID").asText());
        assertStatus(403, acl.call("POST", "/v1/acl/token/onetime/exchange", null, body));
    }

    /** {@code bin/caravan ui ...} without a display (so it prints the URL), with the agent's address. */
    private static String ui(AgentProcess agent, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(AgentProcess.DIST.resolve("bin/caravan").toAbsolutePath()
                .toString(), "ui", "-address=" + agent.address()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("DISPLAY");
        builder.environment().remove("WAYLAND_DISPLAY");
        Process p = builder.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "the CLI finishes");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void caravanUiOpensANodeAndSignsInWithAOneTimeToken() throws Exception {
        String nodeId = open.json("/v1/nodes").get(0).path("ID").asText();
        String node = ui(open, nodeId.substring(0, 8));
        assertTrue(node.contains("URL for web UI: " + open.address() + "/ui/clients/" + nodeId), node);

        String signIn = ui(acl, "-authenticate", "-token", management);
        java.util.regex.Matcher url = java.util.regex.Pattern.compile("URL for web UI: (\\S+)\\?ott=(\\S+)")
                .matcher(signIn);
        assertTrue(url.find(), signIn);
        assertEquals(acl.address() + "/ui/", url.group(1));
        HttpResponse<String> exchanged = acl.call("POST", "/v1/acl/token/onetime/exchange", null,
                "{\"OneTimeSecretID\": \"" + url.group(2) + "\"}");
        assertStatus(200, exchanged);
        assertEquals(management, AgentProcess.JSON.readTree(exchanged.body()).path("Token").path("SecretID").asText());
    }
}
