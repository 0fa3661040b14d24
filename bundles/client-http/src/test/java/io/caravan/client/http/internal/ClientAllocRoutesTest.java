package io.caravan.client.http.internal;

import static io.caravan.client.http.internal.ClientFsRoutesTest.assertStatus;
import static io.caravan.client.http.internal.ClientFsRoutesTest.fieldNames;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import io.caravan.http.ApiResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientAllocRoutesTest {
    static final String ALLOC = "a1";
    @TempDir
    Path temp;
    TestAllocs allocs = new TestAllocs();
    ClientAllocRoutes routes;

    @BeforeEach
    void setUp() throws Exception {
        Path dir = temp.resolve(ALLOC);
        Files.createDirectories(dir.resolve("alloc/logs"));
        Files.createDirectories(dir.resolve("web/local"));
        Files.createDirectories(dir.resolve("sidecar/local"));
        allocs.dirs.put(ALLOC, dir);
        allocs.dirs.put(TestAllocs.RUNNING, dir);
        routes = new ClientAllocRoutes(allocs, Clock.fixed(Instant.ofEpochSecond(1700000000, 5), ZoneOffset.UTC));
    }

    @Test
    void restartOneTaskOrAll() throws Exception {
        ApiResponse response = routes.restart(TestRequest.put(ALLOC, "{\"TaskName\":\"web\"}"));
        assertEquals("{\"Index\":0}", NomadJson.mapper().writeValueAsString(response.body()));
        routes.restart(TestRequest.put(ALLOC, "{\"AllTasks\":true}"));
        routes.restart(TestRequest.put(ALLOC, ""));
        assertEquals(List.of("restart a1 web", "restart a1 null", "restart a1 null"), allocs.calls);
        assertEquals("Unknown task \"db\"", assertStatus(400, () -> routes.restart(TestRequest.put(ALLOC,
                "{\"TaskName\":\"db\"}"))).getMessage());
        assertEquals("Unknown allocation \"zz\"", assertStatus(404, () -> routes.restart(TestRequest.put("zz",
                "{}"))).getMessage());
        assertStatus(400, () -> routes.restart(TestRequest.put(ALLOC, "{not json")));
    }

    @Test
    void signalATaskOrAll() {
        routes.signal(TestRequest.put(ALLOC, "{\"Task\":\"web\",\"Signal\":\"SIGUSR1\"}"));
        routes.signal(TestRequest.put(ALLOC, "{\"Signal\":\"SIGHUP\"}"));
        assertEquals(List.of("signal a1 web SIGUSR1", "signal a1 null SIGHUP"), allocs.calls);
        assertStatus(400, () -> routes.signal(TestRequest.put(ALLOC, "{\"Task\":\"web\"}")));
        assertStatus(400, () -> routes.signal(TestRequest.put(ALLOC, "")));
        assertStatus(404, () -> routes.signal(TestRequest.put("zz", "{\"Signal\":\"SIGHUP\"}")));
        assertStatus(500, () -> routes.signal(TestRequest.put(ALLOC, "{\"Signal\":\"SIGNOPE\"}")));
    }

    @Test
    void gcCollectsAFinishedAllocation() {
        assertNull(routes.gc(TestRequest.get(ALLOC, "")).body());
        assertEquals("No such allocation on client, or allocation not eligible for GC",
                assertStatus(500, () -> routes.gc(TestRequest.get(TestAllocs.RUNNING, ""))).getMessage());
        assertStatus(404, () -> routes.gc(TestRequest.get("zz", "")));
    }

    @Test
    void statsHaveNomadsShapeWithNothingMeasured() throws Exception {
        JsonNode json = NomadJson.mapper().valueToTree(routes.stats(TestRequest.get(ALLOC, "")).body());
        assertEquals(List.of("ResourceUsage", "Tasks", "Timestamp"), fieldNames(json));
        assertEquals(1700000000_000000005L, json.get("Timestamp").asLong());
        JsonNode usage = json.get("ResourceUsage");
        assertEquals(List.of("MemoryStats", "CpuStats", "DeviceStats"), fieldNames(usage));
        assertEquals(0, usage.get("MemoryStats").get("RSS").asLong());
        assertEquals(0, usage.get("MemoryStats").get("Measured").size());
        assertEquals(0.0, usage.get("CpuStats").get("Percent").asDouble());
        assertEquals(List.of("sidecar", "web"), fieldNames(json.get("Tasks")));
        assertEquals(List.of("ResourceUsage", "Timestamp", "Pids"), fieldNames(json.get("Tasks").get("web")));
        assertStatus(404, () -> routes.stats(TestRequest.get("zz", "")));
    }
}
