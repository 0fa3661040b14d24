package io.caravan.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.caravan.api.CaravanException;
import io.caravan.api.acl.AclRule;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiResponse;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Constants;

/** The servlet's guards in Jetty: the request-body limit and errors that escape a route. */
class ApiServletTest {
    /** What every test route serves: open, so the calls test the servlet and not the rules. */
    private static final ApiEndpoint TEST = ApiEndpoint.of("Test.Route", AclRule.PUBLIC);
    private static final int LIMIT = 1024;
    private static final AtomicInteger handled = new AtomicInteger();
    private static Server server;

    /** Serialising it fails: the getter throws. */
    public static final class Unserialisable {
        public String getValue() {
            throw new IllegalStateException("no value");
        }
    }

    @BeforeAll
    static void start() throws Exception {
        ApiServlet servlet = new ApiServlet(HttpConfigs.of(Map.of("max_request_body", (long) LIMIT)),
                Map.of(Constants.SERVICE_PID, "io.caravan.http"), null, new EndpointCalls());
        servlet.bindRoutes(routes -> routes
                .write("/v1/test/raw", TEST, r -> {
                    handled.incrementAndGet();
                    return ApiResponse.raw("text/plain", Integer.toString(r.rawBody().length)
                            .getBytes(StandardCharsets.UTF_8));
                })
                .write("/v1/test/raw-then-json", TEST, r -> ApiResponse.ok(Map.of("Bytes", r.rawBody().length,
                        "Keys", r.rawBody().length == 0 ? 0 : r.body(Map.class).size())))
                .write("/v1/test/json", TEST, r -> {
                    handled.incrementAndGet();
                    return ApiResponse.ok(Map.of("Keys", r.body(Map.class).size()));
                })
                .get("/v1/test/overflow", TEST, r -> {
                    throw new StackOverflowError();
                })
                .get("/v1/test/oom", TEST, r -> {
                    throw new OutOfMemoryError("Java heap space");
                })
                .getAsync("/v1/test/later-error", TEST, r -> CompletableFuture.supplyAsync(() -> {
                    throw new NoClassDefFoundError("io/caravan/Missing");
                }))
                .get("/v1/test/unserialisable", TEST, r -> ApiResponse.ok(new Unserialisable()))
                .get("/v1/test/bad", TEST, r -> {
                    throw CaravanException.invalid("Job.ID", "missing");
                }), Map.of());
        server = TestJetty.start(servlet);
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
    }

    private record Answer(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase());
        }
    }

    /** Writes {@code head} and then {@code body} as it is produced; reads the whole answer. */
    private static Answer exchange(String head, InputStream body) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", TestJetty.port(server))) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            try {
                body.transferTo(out);
                socket.shutdownOutput(); // all sent: what is not there will not come
            } catch (IOException e) {
                // The server answered and closed while the body was still coming: what a refusal looks like.
            }
            return read(socket.getInputStream());
        }
    }

    private static Answer read(InputStream in) throws IOException {
        String all = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        int end = all.indexOf("\r\n\r\n");
        Map<String, String> headers = new java.util.HashMap<>();
        all.substring(0, end).lines().skip(1).forEach(line -> {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).trim().toLowerCase(), line.substring(colon + 1).trim());
        });
        String body = all.substring(end + 4);
        if ("chunked".equals(headers.get("transfer-encoding"))) {
            body = dechunk(body);
        }
        return new Answer(Integer.parseInt(all.substring(9, 12)), headers, body);
    }

    private static String dechunk(String chunked) {
        StringBuilder out = new StringBuilder();
        int at = 0;
        while (true) {
            int eol = chunked.indexOf("\r\n", at);
            int size = Integer.parseInt(chunked.substring(at, eol).trim(), 16);
            if (size == 0) {
                return out.toString();
            }
            out.append(chunked, eol + 2, eol + 2 + size);
            at = eol + 2 + size + 2;
        }
    }

    private static String put(String path, String headers) {
        return "PUT " + path + " HTTP/1.1\r\nHost: test\r\nConnection: close\r\n" + headers + "\r\n";
    }

    /** {@code content} as a chunked body in 100-byte chunks, ended by the last chunk only when {@code end}. */
    private static InputStream chunked(String content, boolean end) {
        StringBuilder out = new StringBuilder();
        for (int at = 0; at < content.length(); at += 100) {
            String chunk = content.substring(at, Math.min(content.length(), at + 100));
            out.append(Integer.toHexString(chunk.length())).append("\r\n").append(chunk).append("\r\n");
        }
        if (end) {
            out.append("0\r\n\r\n");
        }
        return new ByteArrayInputStream(out.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    private static String filler(int n) {
        return " ".repeat(n);
    }

    @Test
    void aHandlerMayLookAtTheBodyAndThenParseIt() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                TestJetty.base(server).resolve("/v1/test/raw-then-json"))
                .PUT(HttpRequest.BodyPublishers.ofString("{\"BootstrapSecret\": \"\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        assertEquals("{\"Bytes\":23,\"Keys\":1}", response.body().replace("{\"Keys\":1,\"Bytes\":23}",
                "{\"Bytes\":23,\"Keys\":1}"));
    }

    @Test
    void aDeclaredLengthOverTheLimitIsRefusedBeforeAByteIsRead() throws IOException {
        int before = handled.get();
        // Only the head is sent: the answer must come without the 5 MiB the head announces.
        Answer answer = exchange(put("/v1/test/raw", "Content-Length: 5242880\r\n"), InputStream.nullInputStream());
        assertEquals(413, answer.status());
        assertEquals("Request body too large: the limit is 1024 bytes", answer.body());
        assertEquals("text/plain;charset=utf-8", answer.header("Content-Type").replace(" ", ""));
        assertEquals("close", answer.header("Connection"));
        assertEquals(before, handled.get(), "no route ran");
    }

    @Test
    void aClientWaitingFor100ContinueGetsThe413AndTheConnectionEnds() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", TestJetty.port(server))) {
            socket.setSoTimeout(10_000); // the answer and the close come at once, or this times out
            socket.getOutputStream().write(put("/v1/test/raw", "Content-Length: 4096\r\nExpect: 100-continue\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            Answer answer = read(socket.getInputStream());
            assertEquals(413, answer.status());
            assertEquals("Request body too large: the limit is 1024 bytes", answer.body());
        }
    }

    @Test
    void aClientThatSendsItAllAnywayReadsThe413() throws Exception {
        // No Expect: 100-continue, as Nomad's Go client: the body keeps coming while the server has answered.
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        byte[] big = new byte[5 * 1024 * 1024];
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(TestJetty.base(server)
                    .resolve("/v1/test/raw")).PUT(HttpRequest.BodyPublishers.ofByteArray(big))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(413, response.statusCode());
            assertEquals("Request body too large: the limit is 1024 bytes", response.body());
        }
    }

    @Test
    void aChunkedBodyIsCutOffAtTheLimitWhileItIsRead() throws IOException {
        for (String path : new String[] {"/v1/test/raw", "/v1/test/json"}) {
            // Ten times the limit and never finished: an answer comes only if reading stops at the limit.
            Answer answer = exchange(put(path, "Transfer-Encoding: chunked\r\n"),
                    chunked("{\"a\": \"" + "x".repeat(10 * LIMIT), false));
            assertEquals(413, answer.status(), path + ": " + answer.body());
            assertEquals("Request body too large: the limit is 1024 bytes", answer.body());
            assertEquals("close", answer.header("Connection"));
        }
    }

    @Test
    void bodiesUpToTheLimitAreServed() throws IOException {
        assertEquals("1024", exchange(put("/v1/test/raw", "Transfer-Encoding: chunked\r\n"),
                chunked(filler(LIMIT), true)).body());
        assertEquals(413, exchange(put("/v1/test/raw", "Transfer-Encoding: chunked\r\n"),
                chunked(filler(LIMIT + 1), true)).status());
        String json = "{\"a\": 1, \"b\": 2}";
        Answer answer = exchange(put("/v1/test/json", "Content-Length: " + json.length() + "\r\n"),
                new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
        assertEquals(200, answer.status());
        assertEquals("{\"Keys\":2}", answer.body());
    }

    @Test
    void theBoundedBodyCountsEveryWayOfReading() throws IOException {
        InputStream exact = new WireRequest.Bounded(new ByteArrayInputStream(new byte[3]), 3);
        assertEquals(0, exact.read());
        assertEquals(2, exact.readAllBytes().length);
        assertEquals(-1, exact.read());
        InputStream over = new WireRequest.Bounded(new ByteArrayInputStream(new byte[4]), 3);
        assertEquals(3, over.skip(3));
        assertThrows(IOException.class, over::read);
        assertThrows(IOException.class, over::read, "stays refused");
        byte[] all = new byte[100];
        assertEquals(100, new WireRequest.Bounded(new ByteArrayInputStream(all), Long.MAX_VALUE).readAllBytes().length);
    }

    @Test
    void throwablesEscapingARouteArePlainText500s() throws IOException {
        Map<String, String> expected = Map.of(
                "/v1/test/overflow", "StackOverflowError",
                "/v1/test/oom", "Java heap space",
                "/v1/test/later-error", "io/caravan/Missing",
                "/v1/test/unserialisable", "no value");
        for (Map.Entry<String, String> e : expected.entrySet()) {
            Answer answer = exchange("GET " + e.getKey() + " HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n",
                    InputStream.nullInputStream());
            assertEquals(500, answer.status(), e.getKey());
            assertTrue(answer.header("Content-Type").startsWith("text/plain"), e.getKey() + ": " + answer.headers());
            assertTrue(answer.body().contains(e.getValue()), e.getKey() + ": " + answer.body());
            assertFalse(answer.body().contains("<html"), e.getKey());
        }
        Answer bad = exchange("GET /v1/test/bad HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n",
                InputStream.nullInputStream());
        assertEquals(400, bad.status());
        assertEquals("Job.ID: missing", bad.body());
    }
}
