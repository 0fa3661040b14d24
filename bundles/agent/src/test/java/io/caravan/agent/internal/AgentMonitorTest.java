package io.caravan.agent.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.json.NomadJson;
import io.caravan.http.ApiResponse;
import io.caravan.http.BodyWriter;
import io.caravan.http.StreamingBody;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code /v1/agent/monitor}: the tap asked at the caller's level and format, lines framed, the tap closed at the end. */
class AgentMonitorTest {
    /** The taps opened, by spec, and whether each was closed. */
    final Map<String, Consumer<String>> taps = new LinkedHashMap<>();
    final List<String> closed = new ArrayList<>();
    final AgentMonitor monitor = new AgentMonitor(AgentRoutesTest.pid(Map.of("name", "node1", "node_id", "id-1",
            "client_enabled", true)), (spec, sink) -> {
                taps.put(spec, sink);
                return () -> closed.add(spec);
            });

    @AfterEach
    void stop() {
        monitor.deactivate();
    }

    /** Collects what the stream writes; the test closes it as a departing client would. */
    static final class Collector implements BodyWriter {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        volatile boolean gone;
        /** False: a reader that takes nothing for now. */
        volatile boolean accepting = true;

        public boolean ready() { return !gone && accepting; }
        public synchronized boolean write(byte[] b) {
            if (!accepting) {
                return false;
            }
            bytes.writeBytes(b);
            return true;
        }
        public void close() { gone = true; }
        public boolean closed() { return gone; }
        synchronized String text() { return bytes.toString(StandardCharsets.UTF_8); }
    }

    private Collector start(String... query) {
        Map<String, String> params = new LinkedHashMap<>();
        for (String q : query) {
            params.put(q.substring(0, q.indexOf('=')), q.substring(q.indexOf('=') + 1));
        }
        ApiResponse r = monitor.monitor(new AgentRoutesTest.Request("GET", "/v1/agent/monitor", params));
        Collector out = new Collector();
        ((StreamingBody) r.body()).start(out);
        return out;
    }

    private static void await(java.util.function.BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out");
            Thread.sleep(10);
        }
    }

    @Test
    void linesLoggedAfterConnectingArriveAsNomadFrames() throws Exception {
        Collector out = start("log_level=debug");
        Consumer<String> sink = taps.get("DEBUG");
        sink.accept("first line");
        sink.accept("second line");
        await(() -> out.text().contains("Data"));
        JsonNode frame = NomadJson.mapper().readTree(out.text());
        assertEquals("first line\nsecond line\n", new String(Base64.getDecoder().decode(frame.path("Data").asText()),
                StandardCharsets.UTF_8));
        out.close();
        await(() -> closed.contains("DEBUG"));
    }

    @Test
    void plainJsonAndLevelsAsAsked() throws Exception {
        Collector out = start("log_level=warn", "log_json=true", "plain=true");
        taps.get("WARN json").accept("{\"@level\":\"warn\"}");
        await(() -> out.text().equals("{\"@level\":\"warn\"}\n"));
        out.close();
        start();
        assertTrue(taps.containsKey("INFO"), "info by default: " + taps.keySet());
    }

    @Test
    void aSlowReaderLosesLinesAndIsToldSo() throws Exception {
        Collector out = new Collector();
        out.accepting = false;
        ApiResponse r = monitor.monitor(new AgentRoutesTest.Request("GET", "/v1/agent/monitor",
                Map.of("plain", "true")));
        ((StreamingBody) r.body()).start(out);
        for (int i = 0; i < AgentMonitor.BUFFER_LINES + 10; i++) {
            taps.get("INFO").accept("line " + i);
        }
        out.accepting = true;
        await(() -> out.text().contains("monitor: dropped "));
        // (the pump may already hold a few lines when the buffer fills, so which ones are lost depends on timing)
        long delivered = out.text().lines().filter(l -> l.startsWith("line ")).count();
        assertTrue(delivered < AgentMonitor.BUFFER_LINES + 10, "lines were dropped, not all delivered: " + delivered);
        assertTrue(out.text().contains("[WARN] monitor: dropped "), out.text().substring(0, 80));
    }

    @Test
    void badRequestsAreRefused() {
        CaravanException level = assertThrows(CaravanException.class, () -> monitor.monitor(
                new AgentRoutesTest.Request("GET", "/v1/agent/monitor", Map.of("log_level", "loud"))));
        assertEquals(ErrorCode.BAD_REQUEST, level.code());
        assertEquals("Unknown log level: loud", level.getMessage());
        assertEquals(ErrorCode.NOT_IMPLEMENTED, assertThrows(CaravanException.class, () -> monitor.monitor(
                new AgentRoutesTest.Request("GET", "/v1/agent/monitor", Map.of("node_id", "other")))).code());
        assertTrue(taps.isEmpty(), "no tap opened for a refused call");
    }
}
