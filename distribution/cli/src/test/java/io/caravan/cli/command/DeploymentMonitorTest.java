package io.caravan.cli.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.net.httpserver.HttpServer;
import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.Connection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The in-place rendering on a terminal: one frame redrawn over the last, ending with Nomad's ✓ or ! line. */
class DeploymentMonitorTest {
    private static final String ID = "d8c7ef09-1111-2222-3333-444444444444";
    private static final String RUNNING = """
            {"ID":"%s","JobID":"web","JobVersion":1,"Status":"running","StatusDescription":"Deployment is running",
             "TaskGroups":{"web":{"DesiredTotal":2,"PlacedAllocs":1,"HealthyAllocs":0,"UnhealthyAllocs":0}}}"""
            .formatted(ID);

    private HttpServer server;
    private final Deque<String> answers = new ArrayDeque<>();
    private final AtomicLong index = new AtomicLong(10);

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        server.createContext("/v1/deployment/" + ID, exchange -> {
            String body;
            synchronized (answers) {
                body = answers.size() > 1 ? answers.poll() : answers.peek();
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("X-Nomad-Index", Long.toString(index.incrementAndGet()));
            exchange.sendResponseHeaders(200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private String run(boolean tty, String... bodies) {
        answers.addAll(List.of(bodies));
        StringWriter out = new StringWriter();
        Context ctx = new Context(new PrintWriter(out, true), new PrintWriter(new StringWriter(), true),
                Map.of("TZ", "UTC"));
        try {
            ApiClient api = new ApiClient(new Connection("http://127.0.0.1:" + server.getAddress().getPort(),
                    null, null, null));
            String status = new DeploymentMonitor(ctx, api, false, tty, "    ").monitor(ID);
            out.write("[status " + status + "]");
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        return out.toString().replaceAll("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ", "<t>");
    }

    @Test
    void onATerminalEachChangeRedrawsTheFrameInPlace() {
        String running2 = RUNNING.replace("\"HealthyAllocs\":0", "\"HealthyAllocs\":1");
        String done = RUNNING.replace("\"running\"", "\"successful\"")
                .replace("Deployment is running", "Deployment completed successfully");
        String out = run(true, RUNNING, running2, done);

        String[] frames = out.split("\u001b\\[\\d+F\u001b\\[J", -1);
        assertEquals(3, frames.length, out);
        assertTrue(frames[0].startsWith("  ⠋ Deployment \"d8c7ef09\" in progress...\n\n    <t>\n    ID          = d8c7ef09\n"),
                frames[0]);
        int firstFrameLines = (int) frames[0].chars().filter(c -> c == '\n').count();
        assertTrue(out.contains("\u001b[" + firstFrameLines + "F"), "moves up over the whole first frame");
        assertTrue(frames[1].startsWith("  ⠙ Deployment \"d8c7ef09\" in progress...\n"), frames[1]);
        assertTrue(frames[2].startsWith("  ✓ Deployment \"d8c7ef09\" successful\n"), frames[2]);
        assertTrue(frames[2].contains("    Status      = successful\n"), frames[2]);
        assertTrue(frames[2].endsWith("\n\n[status successful]"), frames[2]);
    }

    @Test
    void aFailedDeploymentEndsWithAnExclamationMark() {
        String failed = RUNNING.replace("\"running\"", "\"failed\"")
                .replace("Deployment is running", "Failed due to progress deadline");
        String out = run(true, failed);
        assertTrue(out.startsWith("  ! Deployment \"d8c7ef09\" failed\n"), out);
        assertTrue(out.endsWith("[status failed]"), out);
    }

    @Test
    void withoutATerminalEachChangeIsANewBlockAndNothingIsRedrawn() {
        String done = RUNNING.replace("\"running\"", "\"successful\"");
        String out = run(false, RUNNING, RUNNING, done);
        assertTrue(!out.contains("\u001b"), out);
        assertEquals(2, out.split("\n    <t>\n", -1).length - 1, "two blocks: the repeat is not printed\n" + out);
    }
}
