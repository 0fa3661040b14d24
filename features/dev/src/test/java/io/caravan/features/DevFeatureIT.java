package io.caravan.features;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.cleanCaches;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.systemPackages;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import javax.inject.Inject;

import io.caravan.launcher.Launcher;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Boots the dev feature set in Felix with the launcher's framework properties and {@code -dev}: every bundle must
 * reach ACTIVE, the API must answer over real HTTP with Nomad's wire contract, and a Config Admin edit must reach
 * the HTTP component without a restart.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class DevFeatureIT {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Inject
    private BundleContext context;

    @Inject
    private ConfigurationAdmin configAdmin;

    /** Runs outside the container: picks free ports, writes the agent config, lists the feature's bundles. */
    @Configuration
    public Option[] configuration() throws IOException {
        Path home = Files.createTempDirectory("caravan-it-home-");
        Files.createDirectories(home.resolve("deploy"));
        Files.createDirectories(home.resolve("etc"));
        int httpPort = freePort();
        Path config = home.resolve("ports.json");
        Files.writeString(config, String.format("{\"ports\": {\"http\": %d, \"rpc\": %d, \"serf\": %d}}",
                httpPort, freePort(), freePort()));
        Files.writeString(home.resolve("http.port"), Integer.toString(httpPort));

        List<Option> options = new ArrayList<>();
        Map<String, String> props = Launcher.frameworkProperties(home, home.resolve("cache"),
                List.of("-dev", "-config", config.toString()));
        props.forEach((key, value) -> {
            if (key.equals(Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA)) {
                options.add(systemPackages(value.split(",")));
            } else if (!key.startsWith("org.osgi.framework.storage")) {
                options.add(frameworkProperty(key).value(value));
            }
        });
        options.add(frameworkProperty("caravan.it.home").value(home.toString()));
        try (Stream<Path> jars = Files.list(Paths.get(System.getProperty("caravan.it.bundles")))) {
            jars.filter(p -> p.toString().endsWith(".jar")).sorted()
                    .forEach(p -> options.add(bundle(p.toUri().toString())));
        }
        options.add(frameworkProperty("org.ops4j.pax.logging.DefaultServiceLog.level").value("WARN"));
        options.add(org.ops4j.pax.exam.CoreOptions.systemProperty("org.ops4j.pax.logging.DefaultServiceLog.level")
                .value("WARN"));
        options.add(junitBundles());
        options.add(cleanCaches());
        return options.toArray(Option[]::new);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private String base() throws IOException {
        Path home = Paths.get(context.getProperty("caravan.it.home"));
        return "http://127.0.0.1:" + Files.readString(home.resolve("http.port")).trim();
    }

    @Test
    public void everyBundleIsActive() throws Exception {
        await("all bundles ACTIVE", () -> notActive().isEmpty());
        assertEquals(List.of(), notActive());
        List<String> names = Arrays.stream(context.getBundles()).map(Bundle::getSymbolicName).toList();
        for (String expected : List.of("io.caravan.api", "io.caravan.http", "io.caravan.agent", "io.caravan.plugin.api",
                "io.caravan.template", "io.caravan.ui",
                "org.apache.felix.scr", "org.apache.felix.configadmin", "org.apache.felix.fileinstall",
                "org.apache.felix.http.jetty12", "org.apache.felix.webconsole", "org.apache.felix.metatype",
                "org.apache.felix.webconsole.plugins.ds", "io.caravan.console")) {
            assertTrue(expected + " is installed: " + names, names.contains(expected));
        }
    }

    private List<String> notActive() {
        return Arrays.stream(context.getBundles())
                .filter(b -> b.getHeaders().get(Constants.FRAGMENT_HOST) == null)
                .filter(b -> b.getState() != Bundle.ACTIVE)
                .map(b -> b.getSymbolicName() + " (state " + b.getState() + ")")
                .toList();
    }

    @Test
    public void agentSelfAnswersWithNomadsShapeAndHeaders() throws Exception {
        HttpResponse<String> self = awaitOk("/v1/agent/self");
        String body = self.body();
        assertTrue(body, body.startsWith("{\"config\":{\"Region\":\"global\",\"Datacenter\":\"dc1\""));
        assertTrue(body, body.contains("\"member\":{\"Name\":"));
        assertTrue(body, body.contains("\"Status\":\"alive\""));
        assertTrue(body, body.contains("\"stats\":{\"nomad\":{"));
        assertTrue(body, body.contains("\"DevMode\":true"));
        assertEquals("application/json", self.headers().firstValue("Content-Type").orElse(""));
        assertEquals("0", self.headers().firstValue("X-Nomad-Index").orElse(null));
        assertEquals("true", self.headers().firstValue("X-Nomad-KnownLeader").orElse(null));
        assertEquals("0", self.headers().firstValue("X-Nomad-LastContact").orElse(null));

        // Health is 500 until the Raft log has a leader; then the leader is this server.
        assertEquals("{\"client\":{\"ok\":true,\"message\":\"ok\"},\"server\":{\"ok\":true,\"message\":\"ok\"}}",
                awaitOk("/v1/agent/health").body());
        assertEquals("\"127.0.0.1:" + rpcPort(body) + "\"", awaitOk("/v1/status/leader").body());
        assertEquals("[\"127.0.0.1:" + rpcPort(body) + "\"]", awaitOk("/v1/status/peers").body());
        assertEquals("[\"global\"]", awaitOk("/v1/regions").body());
    }

    private static String rpcPort(String selfBody) {
        String marker = "\"Ports\":{\"HTTP\":";
        String rest = selfBody.substring(selfBody.indexOf(marker) + marker.length());
        return rest.substring(rest.indexOf("\"RPC\":") + 6, rest.indexOf(",\"Serf\""));
    }

    @Test
    public void wireContractForErrorsAndPrettyJson() throws Exception {
        awaitOk("/v1/agent/self");
        HttpResponse<String> unknown = send("GET", "/v1/no/such/path");
        assertEquals(404, unknown.statusCode());
        assertEquals("", unknown.body());

        HttpResponse<String> wrongMethod = send("DELETE", "/v1/agent/self");
        assertEquals(405, wrongMethod.statusCode());
        assertEquals("Invalid method", wrongMethod.body());
        assertTrue(wrongMethod.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));

        HttpResponse<String> badIndex = send("GET", "/v1/regions?index=abc");
        assertEquals(400, badIndex.statusCode());
        assertEquals("Invalid index", badIndex.body());

        assertEquals("[\n    \"global\"\n]\n", send("GET", "/v1/regions?pretty").body());

        HttpResponse<String> root = send("GET", "/");
        assertEquals(307, root.statusCode());
        assertEquals("/ui/", root.headers().firstValue("Location").orElse(null));
    }

    @Test
    public void configAdminEditReachesTheHttpComponentWithoutRestart() throws Exception {
        awaitOk("/v1/agent/self");
        org.osgi.service.cm.Configuration http = configAdmin.getConfiguration("io.caravan.http", "?");
        Dictionary<String, Object> original = http.getProperties();
        Dictionary<String, Object> edited = new Hashtable<>();
        for (String key : java.util.Collections.list(original.keys())) {
            edited.put(key, original.get(key));
        }
        edited.put("response.headers", new String[] {"X-Caravan-Test: edited"});
        http.update(edited);
        try {
            await("the edited header is served", () -> "edited".equals(
                    sendQuietly("/v1/regions").headers().firstValue("X-Caravan-Test").orElse(null)));
            // A reload that does not change the agent's own HTTP configuration leaves the direct edit alone.
            assertEquals(200, send("PUT", "/v1/agent/reload").statusCode());
            assertEquals("edited", send("GET", "/v1/regions").headers().firstValue("X-Caravan-Test").orElse(null));
        } finally {
            http.update(original);
        }
        await("the header is gone again", () -> sendQuietly("/v1/regions").headers()
                .firstValue("X-Caravan-Test").isEmpty());
    }

    @Test
    public void aBadReloadIsRejectedWholeAndAGoodOneReachesConfigAdmin() throws Exception {
        awaitOk("/v1/agent/self");
        Path config = Paths.get(context.getProperty("caravan.it.home")).resolve("ports.json");
        String good = Files.readString(config);
        org.osgi.service.cm.Configuration http = configAdmin.getConfiguration("io.caravan.http", "?");
        Object headersBefore = http.getProperties().get("response.headers");
        try {
            // Valid headers, but a bad key elsewhere: nothing may be applied.
            Files.writeString(config, good.replaceFirst("}$",
                    ", \"http_api_response_headers\": {\"X-Half\": \"applied\"}, \"telemetry\": {\"bogus\": 1}}"));
            HttpResponse<String> bad = send("PUT", "/v1/agent/reload");
            assertEquals(400, bad.statusCode());
            assertTrue(bad.body(), bad.body().endsWith("unknown key \"telemetry.bogus\""));
            assertTrue(Arrays.equals((String[]) headersBefore,
                    (String[]) configAdmin.getConfiguration("io.caravan.http", "?").getProperties()
                            .get("response.headers")));

            Files.writeString(config, good.replaceFirst("}$",
                    ", \"http_api_response_headers\": {\"X-Whole\": \"applied\"}}"));
            HttpResponse<String> ok = send("PUT", "/v1/agent/reload");
            assertEquals(ok.body(), 200, ok.statusCode());
            assertTrue(ok.body(), ok.body().startsWith("{\"Changed\":[\"http_api_response_headers.X-Whole\"]"));
            assertTrue(Arrays.equals(new String[] {"X-Whole: applied"},
                    (String[]) configAdmin.getConfiguration("io.caravan.http", "?").getProperties()
                            .get("response.headers")));
        } finally {
            Files.writeString(config, good);
            send("PUT", "/v1/agent/reload");
        }
    }

    @Test
    public void routesComeAndGoWithTheirServiceAndBlockingRoutesParkWithoutThreads() throws Exception {
        awaitOk("/v1/agent/self");
        java.util.concurrent.CompletableFuture<io.caravan.http.ApiResponse> release =
                new java.util.concurrent.CompletableFuture<>();
        io.caravan.http.ApiEndpoint open = io.caravan.http.ApiEndpoint.of("Test.Route",
                io.caravan.api.acl.AclRule.PUBLIC);
        io.caravan.http.ApiRoutes routes = table -> table
                .get("/v1/it/hello/{name}", open, r -> io.caravan.http.ApiResponse.ok(java.util.Map.of("Hello",
                        r.pathParam("name"))))
                .getAsync("/v1/it/parked", open, r -> release);
        org.osgi.framework.ServiceRegistration<io.caravan.http.ApiRoutes> registration =
                context.registerService(io.caravan.http.ApiRoutes.class, routes, null);
        try {
            assertEquals("{\"Hello\":\"x y\"}", awaitOk("/v1/it/hello/x%20y").body());

            List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> parked = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                parked.add(HTTP.sendAsync(HttpRequest.newBuilder(URI.create(base() + "/v1/it/parked?index=1"))
                        .timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString()));
            }
            Thread.sleep(1000); // let them all arrive and park
            // Pools may grow under the burst; what must not happen is a thread sitting in the servlet per request.
            long inServlet = java.util.Arrays.stream(java.lang.management.ManagementFactory.getThreadMXBean()
                            .dumpAllThreads(false, false))
                    .filter(t -> java.util.Arrays.stream(t.getStackTrace()).anyMatch(
                            frame -> frame.getClassName().startsWith("io.caravan.http.internal.ApiServlet")))
                    .count();
            assertEquals("threads inside the API servlet while 200 requests are parked", 0, inServlet);
            assertTrue(parked.stream().noneMatch(java.util.concurrent.CompletableFuture::isDone));

            release.complete(io.caravan.http.ApiResponse.ok(List.of("woken"), io.caravan.http.QueryMeta.index(2)));
            for (java.util.concurrent.CompletableFuture<HttpResponse<String>> f : parked) {
                HttpResponse<String> r = f.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                assertEquals(200, r.statusCode());
                assertEquals("[\"woken\"]", r.body());
                assertEquals("2", r.headers().firstValue("X-Nomad-Index").orElse(null));
            }
        } finally {
            registration.unregister();
        }
        await("the route is gone with its service", () -> sendQuietly("/v1/it/hello/x").statusCode() == 404);
    }

    @Test
    public void anEndpointBundleDroppedIntoTheRunningAgentServesItsRoutesUntilItIsRemoved() throws Exception {
        awaitOk("/v1/agent/self");
        assertEquals(404, send("GET", "/v1/dropin/hello").statusCode());
        Bundle dropIn = context.installBundle("caravan-it:dropin", new ByteArrayInputStream(dropInBundle()));
        try {
            dropIn.start();
            assertEquals("{\"Hello\":\"drop-in\"}", awaitOk("/v1/dropin/hello").body());
            String listed = awaitOk("/v1/agent/endpoints").body();
            assertTrue(listed, listed.contains("\"Endpoint\":\"DropIn.Hello\",\"Rule\":\"public\""));
        } finally {
            dropIn.uninstall();
        }
        await("the route is gone with its bundle", () -> sendQuietly("/v1/dropin/hello").statusCode() == 404);
        assertTrue(!awaitOk("/v1/agent/endpoints").body().contains("DropIn.Hello"));
    }

    /** A bundle holding only {@link DropInRoutes}, importing what it uses from the platform's exported APIs. */
    private static byte[] dropInBundle() throws IOException {
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
        main.putValue(Constants.BUNDLE_SYMBOLICNAME, "io.caravan.it.dropin");
        main.putValue(Constants.BUNDLE_VERSION, "1.0.0");
        main.putValue(Constants.BUNDLE_ACTIVATOR, DropInRoutes.class.getName());
        main.putValue(Constants.IMPORT_PACKAGE, "io.caravan.api.acl,io.caravan.http,org.osgi.framework");
        String entry = DropInRoutes.class.getName().replace('.', '/') + ".class";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(out, manifest);
             InputStream classFile = DropInRoutes.class.getClassLoader().getResourceAsStream(entry)) {
            jar.putNextEntry(new JarEntry(entry));
            classFile.transferTo(jar);
            jar.closeEntry();
        }
        return out.toByteArray();
    }

    private HttpResponse<String> send(String method, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base() + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(5)).build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> sendQuietly(String path) {
        try {
            return send("GET", path);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private HttpResponse<String> awaitOk(String path) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> response = send("GET", path);
                if (response.statusCode() == 200) {
                    return response;
                }
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(100);
        }
        throw new AssertionError(path + " did not answer 200 within " + WAIT, last);
    }

    /** Nomad's node as the API shows it, or "" before the client registered. */
    private String localNode() {
        try {
            String nodes = HTTP.send(HttpRequest.newBuilder(URI.create(base() + "/v1/nodes")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            java.util.regex.Matcher id = java.util.regex.Pattern.compile("\"ID\":\"([0-9a-f-]{36})\"").matcher(nodes);
            if (!id.find()) {
                return "";
            }
            return HTTP.send(HttpRequest.newBuilder(URI.create(base() + "/v1/node/" + id.group(1))).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private Bundle installed(String symbolicName) {
        return Arrays.stream(context.getBundles()).filter(b -> b.getSymbolicName().equals(symbolicName)).findFirst()
                .orElseThrow(() -> new AssertionError(symbolicName + " is not installed"));
    }

    @Test
    public void driversAndFingerprintersComeAndGoWithTheirBundles() throws Exception {
        await("the node registered with raw_exec and cpu attributes",
                () -> localNode().contains("\"driver.raw_exec\":\"1\"") && localNode().contains("\"cpu.numcores\""));

        Bundle rawExec = installed("io.caravan.driver.rawexec");
        rawExec.stop();
        await("raw_exec left the node", () -> !localNode().contains("\"driver.raw_exec\""));
        assertTrue("the other driver stays", localNode().contains("\"driver.exec\""));
        rawExec.start();
        await("raw_exec is back", () -> localNode().contains("\"driver.raw_exec\":\"1\""));

        Bundle cpu = installed("io.caravan.fingerprint.cpu");
        cpu.stop();
        await("exactly the cpu attributes left", () -> !localNode().contains("\"cpu.numcores\""));
        assertTrue("other fingerprinters' attributes stay", localNode().contains("\"memory.totalbytes\""));
        cpu.start();
        await("the cpu attributes are back", () -> localNode().contains("\"cpu.numcores\""));
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("timed out after " + WAIT + " waiting until " + what);
    }
}
