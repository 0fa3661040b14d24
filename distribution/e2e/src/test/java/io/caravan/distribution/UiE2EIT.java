package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The web UI as HTTP sees it (no browser): {@code /ui/} and any page path answer the app's HTML, its hashed assets
 * are cached for good, {@code /ui/console} is still the web console, and with the UI bundle stopped (through the
 * console, as an operator would) {@code /ui/} leads to the console again, until the bundle starts. And what the UI
 * relies on for followed logs: a streamed answer reaches a client that accepts gzip as it is written.
 */
class UiE2EIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Pattern SCRIPT = Pattern.compile("src=\"(/ui/assets/app-[A-Za-z0-9]+\\.js)\"");
    private static DevAgent dev;

    @BeforeAll
    static void start() throws Exception {
        dev = DevAgent.start("caravan-ui-");
    }

    @AfterAll
    static void stop() throws Exception {
        if (dev != null) {
            dev.close();
        }
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(dev.agent().address() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void uiPagesAssetsAndConsole() throws Exception {
        HttpResponse<String> index = get("/ui/");
        assertEquals(200, index.statusCode(), index.body());
        assertTrue(index.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
        assertEquals("no-cache", index.headers().firstValue("Cache-Control").orElse(""));
        Matcher script = SCRIPT.matcher(index.body());
        assertTrue(script.find(), index.body());

        HttpResponse<String> page = get("/ui/jobs/example@prod");
        assertEquals(200, page.statusCode());
        assertEquals(index.body(), page.body(), "a page of the app answers its index.html");

        HttpResponse<String> app = get(script.group(1));
        assertEquals(200, app.statusCode());
        assertTrue(app.headers().firstValue("Content-Type").orElse("").startsWith("text/javascript"));
        assertTrue(app.headers().firstValue("Cache-Control").orElse("").contains("immutable"));
        assertTrue(app.body().length() > 10_000, "the bundled app");
        assertEquals(404, get("/ui/assets/missing-0000.js").statusCode());

        HttpResponse<String> console = get("/ui/console/bundles");
        assertEquals(401, console.statusCode(), "the console still answers its own paths");
        assertTrue(console.headers().firstValue("WWW-Authenticate").orElse("").contains("OSGi Management Console"));
        HttpResponse<String> root = get("/");
        assertEquals(307, root.statusCode());
        assertEquals("/ui/", root.headers().firstValue("Location").orElse(""));
    }

    @Test
    void withTheUiBundleStoppedUiLeadsToTheConsole() throws Exception {
        try {
            assertEquals(200, bundleAction("stop"));
            AgentProcess.await("/ui/ redirects to the console", Duration.ofSeconds(20), () -> {
                try {
                    HttpResponse<String> ui = get("/ui/");
                    return ui.statusCode() == 307
                            && ui.headers().firstValue("Location").orElse("").equals("/ui/console");
                } catch (Exception e) {
                    return false;
                }
            });
        } finally {
            assertEquals(200, bundleAction("start"));
        }
        AgentProcess.await("/ui/ is the UI again", Duration.ofSeconds(20), () -> {
            try {
                return get("/ui/").statusCode() == 200;
            } catch (Exception e) {
                return false;
            }
        });
    }

    /**
     * A followed log asked for with {@code Accept-Encoding: gzip} (as every browser asks) arrives as it is written,
     * not when the stream ends: Jetty's gzip flushes each write.
     */
    @Test
    void aFollowedLogReachesAGzipClientAsItIsWritten() throws Exception {
        var register = dev.agent().call("POST", "/v1/jobs", null, """
                {"Job": {"ID": "gzip-follow", "Type": "service", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                  "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/sh",
                    "args": ["-c", "while true; do echo gzip-line; sleep 1; done"]}}]}]}}""");
        assertEquals(200, register.statusCode(), register.body());
        String[] alloc = new String[1];
        AgentProcess.await("a running allocation", Duration.ofSeconds(60), () -> {
            for (var a : dev.agent().json("/v1/job/gzip-follow/allocations")) {
                if (a.path("ClientStatus").asText().equals("running")) {
                    alloc[0] = a.path("ID").asText();
                    return true;
                }
            }
            return false;
        });
        HttpResponse<java.io.InputStream> response = HTTP.send(HttpRequest.newBuilder(URI.create(dev.agent().address()
                        + "/v1/client/fs/logs/" + alloc[0] + "?task=t&type=stdout&plain=true&follow=true"))
                .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, response.statusCode());
        assertEquals("gzip", response.headers().firstValue("Content-Encoding").orElse(""));
        // Bytes, not a Reader: InputStreamReader waits for more while an InflaterInputStream says 1 byte is available.
        var reading = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try (var in = new java.util.zip.GZIPInputStream(response.body())) {
                var line = new java.io.ByteArrayOutputStream();
                int b;
                while ((b = in.read()) >= 0 && b != '\n') {
                    line.write(b);
                }
                return line.toString(StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                return "failed: " + e;
            }
        });
        try {
            assertEquals("gzip-line", reading.get(15, java.util.concurrent.TimeUnit.SECONDS));
        } finally {
            response.body().close();
        }
    }

    /** The web console's bundle action on io.caravan.ui ({@code -dev}: admin/admin, from this host). */
    private static int bundleAction(String action) throws Exception {
        String basic = Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8));
        return HTTP.send(HttpRequest.newBuilder(URI.create(dev.agent().address() + "/ui/console/bundles/io.caravan.ui"))
                .header("Authorization", "Basic " + basic)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("action=" + action))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }
}
