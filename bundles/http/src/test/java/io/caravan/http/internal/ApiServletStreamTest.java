package io.caravan.http.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.caravan.api.acl.AclRule;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiResponse;
import io.caravan.http.BodyWriter;
import io.caravan.http.StreamingBody;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Constants;

/** Raw and streaming bodies through the real servlet in Jetty, the container Felix HTTP runs it in. */
class ApiServletStreamTest {
    /** What every test route serves: open, so the calls test the servlet and not the rules. */
    private static final ApiEndpoint TEST = ApiEndpoint.of("Test.Route", AclRule.PUBLIC);
    private static final byte[] BIG = new byte[6 * 1024 * 1024];
    private static Server server;
    private static ScheduledExecutorService producer;
    private static URI base;
    private static final AtomicReference<BodyWriter> follower = new AtomicReference<>();
    private static final CountDownLatch followerClosed = new CountDownLatch(1);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws Exception {
        new Random(7).nextBytes(BIG);
        producer = Executors.newScheduledThreadPool(1);
        ApiServlet servlet = new ApiServlet(HttpConfigs.of(Map.of("server_enabled", true)),
                Map.of(Constants.SERVICE_PID, "io.caravan.http"), null, new EndpointCalls());
        servlet.bindRoutes(routes -> routes
                .get("/v1/test/raw", TEST, r -> ApiResponse.raw("text/plain", "héllo".getBytes(StandardCharsets.UTF_8)))
                .get("/v1/test/chunks", TEST, r -> ApiResponse.stream(body("text/plain", out -> producer.execute(() -> {
                    try {
                        for (String s : new String[] {"one ", "two ", "three"}) {
                            while (!out.write(s.getBytes(StandardCharsets.UTF_8))) {
                                Thread.sleep(5);
                            }
                        }
                    } catch (IOException | InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    out.close();
                }))))
                .get("/v1/test/big", TEST, r -> ApiResponse.stream(body("application/octet-stream",
                        out -> pump(out, new int[] {0}))))
                .getAsync("/v1/test/later", TEST, r -> {
                    // A stream that is decided after service() returned (a blocking query's path).
                    java.util.concurrent.CompletableFuture<ApiResponse> later =
                            new java.util.concurrent.CompletableFuture<>();
                    producer.schedule(() -> later.complete(ApiResponse.stream(body("text/plain",
                            out -> producer.execute(() -> {
                                try {
                                    out.write("late".getBytes(StandardCharsets.UTF_8));
                                } catch (IOException e) {
                                    throw new IllegalStateException(e);
                                }
                                out.close();
                            })))), 50, TimeUnit.MILLISECONDS);
                    return later;
                })
                .get("/v1/test/follow", TEST, r -> ApiResponse.stream(body("application/json", out -> {
                    follower.set(out);
                    watch(out);
                }))), Map.of());
        server = TestJetty.start(servlet);
        base = TestJetty.base(server);
    }

    /** Writes BIG in 64 KiB chunks, only while the writer is ready, rescheduling itself: no thread ever blocks. */
    private static void pump(BodyWriter out, int[] position) {
        try {
            while (position[0] < BIG.length && out.ready()) {
                int n = Math.min(64 * 1024, BIG.length - position[0]);
                byte[] chunk = java.util.Arrays.copyOfRange(BIG, position[0], position[0] + n);
                if (!out.write(chunk)) {
                    break;
                }
                position[0] += n;
            }
        } catch (IOException e) {
            return;
        }
        if (position[0] >= BIG.length) {
            out.close();
        } else {
            producer.schedule(() -> pump(out, position), 2, TimeUnit.MILLISECONDS);
        }
    }

    private static void watch(BodyWriter out) {
        if (out.closed()) {
            followerClosed.countDown();
            return;
        }
        try {
            if (out.ready()) {
                out.write("{}".getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            followerClosed.countDown();
            return;
        }
        producer.schedule(() -> watch(out), 50, TimeUnit.MILLISECONDS);
    }

    private static StreamingBody body(String type, java.util.function.Consumer<BodyWriter> start) {
        return new StreamingBody() {
            @Override
            public String contentType() {
                return type;
            }

            @Override
            public void start(BodyWriter out) {
                start.accept(out);
            }
        };
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
        producer.shutdownNow();
    }

    private HttpResponse<byte[]> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void rawBodyIsWrittenAsIs() throws Exception {
        HttpResponse<byte[]> response = get("/v1/test/raw");
        assertEquals(200, response.statusCode());
        assertEquals("héllo", new String(response.body(), StandardCharsets.UTF_8));
        assertEquals("text/plain", response.headers().firstValue("Content-Type").orElseThrow());
        assertEquals("nosniff", response.headers().firstValue("X-Content-Type-Options").orElseThrow());
    }

    @Test
    void streamedChunksArriveInOrderAndTheResponseEnds() throws Exception {
        HttpResponse<byte[]> response = get("/v1/test/chunks");
        assertEquals(200, response.statusCode());
        assertEquals("one two three", new String(response.body(), StandardCharsets.UTF_8));
    }

    @Test
    void aStreamDecidedAfterServiceReturnedWorksToo() throws Exception {
        HttpResponse<byte[]> response = get("/v1/test/later");
        assertEquals(200, response.statusCode());
        assertEquals("late", new String(response.body(), StandardCharsets.UTF_8));
    }

    @Test
    void aLargeStreamArrivesWholeThroughNonBlockingWrites() throws Exception {
        HttpResponse<byte[]> response = get("/v1/test/big");
        assertEquals(200, response.statusCode());
        assertArrayEquals(BIG, response.body());
    }

    @Test
    void aFollowerSeesHeadersAtOnceAndTheProducerLearnsWhenTheClientLeaves() throws Exception {
        HttpResponse<InputStream> response = http.send(HttpRequest.newBuilder(base.resolve("/v1/test/follow"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, response.statusCode());
        InputStream in = response.body();
        byte[] two = in.readNBytes(2);
        assertEquals("{}", new String(two, StandardCharsets.UTF_8));
        in.close();
        assertTrue(followerClosed.await(15, TimeUnit.SECONDS), "the producer saw the client go away");
        assertTrue(follower.get().closed());
    }
}
