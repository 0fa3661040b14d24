package io.caravan.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiResponse;
import io.caravan.http.HttpForward;
import io.caravan.http.WriteBarrier;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Constants;

/**
 * What the servlet of a server does before a write runs (waits for its {@link WriteBarrier}), and the
 * {@link HttpForward#FORWARDED} mark, which only the agent itself can set.
 */
class ApiServletWritesTest {
    private static final ApiEndpoint WRITE = ApiEndpoint.of("Test.Write", AclRule.PUBLIC);
    private static final ApiEndpoint AGENT = ApiEndpoint.of("Test.Agent", AclRule.PUBLIC).agentLocal();
    private static final AtomicInteger handled = new AtomicInteger();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static volatile CompletableFuture<Void> gate;
    private static Server server;

    @BeforeAll
    static void start() throws Exception {
        ApiServlet servlet = new ApiServlet(HttpConfigs.of(Map.of("server_enabled", true)), Map.of(Constants.SERVICE_PID, "io.caravan.http"),
                null, new EndpointCalls());
        servlet.bindRoutes(routes -> routes
                .write("/v1/test/write", WRITE, r -> ApiResponse.ok(Map.of("Handled", handled.incrementAndGet())))
                .write("/v1/test/agent", AGENT, r -> ApiResponse.ok(Map.of("Handled", handled.incrementAndGet())))
                .get("/v1/test/read", WRITE, r -> ApiResponse.ok(Map.of("Handled", handled.incrementAndGet())))
                .get("/v1/test/forwarded", WRITE, r -> ApiResponse.ok(Map.of("Forwarded",
                        r.header(HttpForward.FORWARDED).isPresent()))), Map.of());
        servlet.bindBarrier(new WriteBarrier() {
            @Override
            public CompletionStage<Void> beforeWrite() {
                return gate.copy();
            }
        });
        server = TestJetty.start(servlet);
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
    }

    @BeforeEach
    void closeTheGate() {
        gate = new CompletableFuture<>();
        handled.set(0);
    }

    private static CompletableFuture<HttpResponse<String>> send(String method, String path, Map<String, String> headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(TestJetty.base(server).resolve(path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10));
        headers.forEach(request::header);
        return HTTP.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aWriteRunsOnceTheServersStateIsCurrent() throws Exception {
        CompletableFuture<HttpResponse<String>> write = send("PUT", "/v1/test/write", Map.of());
        Thread.sleep(300);
        assertFalse(write.isDone(), "the write waits");
        assertEquals(0, handled.get(), "its handler has not run");

        gate.complete(null);
        HttpResponse<String> answer = write.get(10, TimeUnit.SECONDS);
        assertEquals(200, answer.statusCode(), answer.body());
        assertEquals(1, handled.get());
    }

    @Test
    void readsAndTheAgentsOwnOperationsDoNotWait() throws Exception {
        assertEquals(200, send("GET", "/v1/test/read", Map.of()).get(10, TimeUnit.SECONDS).statusCode());
        assertEquals(200, send("POST", "/v1/test/agent", Map.of()).get(10, TimeUnit.SECONDS).statusCode());
        assertEquals(2, handled.get());
    }

    @Test
    void aWriteWhoseServerCannotCatchUpIsRefusedUnrun() throws Exception {
        gate.completeExceptionally(new CaravanException(ErrorCode.NO_LEADER, "No cluster leader"));
        HttpResponse<String> answer = send("PUT", "/v1/test/write", Map.of()).get(10, TimeUnit.SECONDS);
        assertEquals(500, answer.statusCode());
        assertEquals("No cluster leader", answer.body());
        assertEquals(0, handled.get());
    }

    @Test
    void aCallersForwardedMarkIsNotBelieved() throws Exception {
        for (String value : new String[] {"1", "true", ""}) {
            HttpResponse<String> answer = send("GET", "/v1/test/forwarded", Map.of(HttpForward.FORWARDED, value))
                    .get(10, TimeUnit.SECONDS);
            assertEquals("{\"Forwarded\":false}", answer.body(), "X-Caravan-Forwarded: " + value);
        }
        // What this agent sends its own listener for a call another server relayed here.
        Map<String, String> relayed = ForwardedMark.forListener(Map.of(HttpForward.FORWARDED, "1"));
        HttpResponse<String> answer = send("GET", "/v1/test/forwarded", relayed).get(10, TimeUnit.SECONDS);
        assertEquals("{\"Forwarded\":true}", answer.body());
        assertTrue(ForwardedMark.forListener(Map.of("X-Nomad-Token", "t")).keySet().stream()
                .noneMatch(HttpForward.FORWARDED::equalsIgnoreCase), "an unmarked call stays unmarked");
    }
}
