package io.caravan.client.internal.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Service;
import io.caravan.api.model.ServiceCheck;
import io.caravan.client.internal.testing.Fixtures;
import io.caravan.plugin.api.driver.ExecResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** http, tcp and script checks against real sockets, their results, and check_restart. */
class AllocChecksTest {
    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);
    private final AtomicInteger status = new AtomicInteger(500);
    private final List<String> restarts = new CopyOnWriteArrayList<>();
    private final AtomicInteger changes = new AtomicInteger();
    private HttpServer http;
    private AllocChecks checks;

    @BeforeEach
    void start() throws Exception {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/health", ex -> {
            byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(status.get(), body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        http.start();
        checks = new AllocChecks("a1", scheduler, scheduler, Clock.systemUTC(),
                (task, argv, timeout) -> new ExecResult(argv.contains("fail") ? 2 : 0,
                        ("ran " + String.join(" ", argv)).getBytes(StandardCharsets.UTF_8), new byte[0]),
                (task, reason) -> restarts.add(task + ": " + reason), changes::incrementAndGet);
    }

    @AfterEach
    void stop() {
        checks.stopAll();
        http.stop(0);
        scheduler.shutdownNow();
    }

    private static ServiceCheck check(Map<String, Object> fields) {
        return NomadJson.mapper().convertValue(fields, ServiceCheck.class);
    }

    private static Service service(Map<String, Object> fields) {
        return NomadJson.mapper().convertValue(fields, Service.class);
    }

    private AllocChecks.Result only() {
        return checks.results().values().iterator().next();
    }

    @Test
    void anHttpCheckFailsOnAnErrorAndPassesOn2xx() {
        ServiceCheck c = check(Map.of("Name", "alive", "Type", "http", "Path", "/health",
                "Interval", Duration.ofMillis(100).toNanos(), "Timeout", Duration.ofSeconds(1).toNanos()));
        checks.start(List.of(new AllocChecks.Target("web", "g", "web", service(Map.of("Name", "api")), "api", c,
                "127.0.0.1", http.getAddress().getPort())));
        assertNull(checks.passing(), "pending before the first result");
        Fixtures.await(Duration.ofSeconds(5), "a failure", () -> "failure".equals(only().status()));
        assertEquals(500, only().statusCode());
        assertEquals(Boolean.FALSE, checks.passing());
        status.set(200);
        Fixtures.await(Duration.ofSeconds(5), "a success", () -> "success".equals(only().status()));
        assertEquals(Boolean.TRUE, checks.passing());
        AllocChecks.Result r = only();
        assertEquals("alive", r.check());
        assertEquals("api", r.service());
        assertEquals("healthiness", r.mode());
        assertTrue(r.output().contains("200"), r.output());
        assertTrue(changes.get() >= 2);
        String json = NomadJson.mapper().valueToTree(r).toString();
        assertTrue(json.contains("\"Status\":\"success\"") && json.contains("\"Check\":\"alive\""), json);
    }

    @Test
    void aTcpCheckOnAClosedPortFailsAndCheckRestartRestartsTheTask() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        ServiceCheck c = check(Map.of("Name", "port", "Type", "tcp", "Interval", Duration.ofMillis(50).toNanos(),
                "CheckRestart", Map.of("Limit", 2, "Grace", 0)));
        checks.start(List.of(new AllocChecks.Target("web", "g", "web", service(Map.of("Name", "api")), "api", c,
                "127.0.0.1", closed)));
        Fixtures.await(Duration.ofSeconds(5), "a restart", () -> !restarts.isEmpty());
        assertEquals("web: healthcheck: check \"port\" unhealthy", restarts.get(0));
        assertEquals("failure", only().status());
    }

    @Test
    void aScriptCheckRunsInTheTaskAndAnIgnoredOneDoesNotCount() {
        ServiceCheck ok = check(Map.of("Name", "script", "Type", "script", "Command", "/bin/true",
                "Args", List.of("x"), "Interval", Duration.ofMillis(100).toNanos()));
        ServiceCheck ignored = check(Map.of("Name", "ready", "Type", "script", "Command", "fail",
                "OnUpdate", "ignore", "Interval", Duration.ofMillis(100).toNanos()));
        Service s = service(Map.of("Name", "api"));
        checks.start(List.of(new AllocChecks.Target("web", "g", "web", s, "api", ok, "", 0),
                new AllocChecks.Target("web", "g", "web", s, "api", ignored, "", 0)));
        Fixtures.await(Duration.ofSeconds(5), "both results", () -> checks.results().values().stream()
                .noneMatch(r -> r.status().equals("pending")));
        assertEquals(Boolean.TRUE, checks.passing(), "the readiness check's failure does not count");
        assertTrue(checks.results().values().stream().anyMatch(r -> r.mode().equals("readiness")
                && r.status().equals("failure") && r.statusCode() == 2));
        checks.stop("web");
        assertTrue(checks.isEmpty());
    }
}
