package io.caravan.client.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import io.caravan.metrics.MetricSink;
import io.caravan.metrics.TelemetryOptions;
import io.caravan.metrics.Timing;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client's per-allocation metrics from a running task's captured /proc files. */
class AllocMetricsTest {
    static final String ALLOC = "5e1f0c2a-0000-4000-8000-000000000001";
    static final String LABELS = "{alloc_id=" + ALLOC + ", job=web, namespace=prod, task=server, task_group=front}";
    @TempDir
    Path temp;
    TestAllocs allocs = new TestAllocs();
    AtomicLong nanos = new AtomicLong(5_000_000_000L);
    Path proc;
    ClientAllocRoutes routes;

    /** Keeps one pass of gauges as "name{labels}" → value. */
    static final class Pass implements MetricSink {
        final Map<String, Double> gauges = new TreeMap<>();
        final TelemetryOptions options;

        Pass(boolean publishAllocationMetrics) {
            options = new TelemetryOptions(publishAllocationMetrics, false, true);
        }

        @Override
        public void gauge(String name, Map<String, String> labels, double value) {
            gauges.put(name + new TreeMap<>(labels), value);
        }

        @Override
        public void counter(String name, Map<String, String> labels, double total) {
            throw new AssertionError("no counters: " + name);
        }

        @Override
        public void timer(String name, Map<String, String> labels, Timing.Snapshot timing) {
            throw new AssertionError("no timers: " + name);
        }

        @Override
        public TelemetryOptions options() {
            return options;
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        proc = Files.createDirectories(temp.resolve("proc"));
        Files.createDirectories(proc.resolve("4242"));
        Files.writeString(proc.resolve("4242/stat"), ClientAllocRoutesTest.stat(250, 50));
        Files.writeString(proc.resolve("4242/status"), "Name:\tsleep\nVmRSS:\t    2048 kB\nVmSwap:\t      16 kB\n");
        Files.writeString(proc.resolve("cpuinfo"), "processor\t: 0\ncpu MHz\t\t: 2000.000\n");
        allocs.dirs.put(ALLOC, temp.resolve(ALLOC));
        allocs.allocations.put(ALLOC, NomadJson.mapper().readValue("""
                {"ID": "%s", "Namespace": "prod", "JobID": "web", "Job": {"ID": "web", "Name": "web"},
                 "TaskGroup": "front", "AllocatedResources": {"Tasks": {"server": {"Cpu": {"CpuShares": 500},
                 "Memory": {"MemoryMB": 256}}}}}""".formatted(ALLOC), Allocation.class));
        allocs.pids.put("server", List.of(4242L));
        routes = new ClientAllocRoutes(allocs, Clock.systemUTC(), new ProcFs(proc), nanos::get, wait -> {
            throw new AssertionError("a metrics pass never waits");
        });
    }

    private Map<String, Double> pass() {
        Pass pass = new Pass(true);
        routes.sample(pass);
        return pass.gauges;
    }

    @Test
    void aRunningTasksUsageUnderNomadsNamesAndLabels() throws Exception {
        Map<String, Double> first = pass();
        assertEquals(2048.0 * 1024, first.get("nomad.client.allocs.memory.rss" + LABELS));
        assertEquals(0.0, first.get("nomad.client.allocs.cpu.total_percent" + LABELS), "no earlier reading yet");
        // One second later the process used 50 user and 10 system ticks more.
        nanos.addAndGet(1_000_000_000L);
        Files.writeString(proc.resolve("4242/stat"), ClientAllocRoutesTest.stat(300, 60));
        Map<String, Double> second = pass();
        Map<String, Double> expected = new TreeMap<>();
        expected.put("nomad.client.allocs.memory.rss", 2048.0 * 1024);
        expected.put("nomad.client.allocs.memory.swap", 16.0 * 1024);
        expected.put("nomad.client.allocs.memory.usage", 2048.0 * 1024);
        expected.put("nomad.client.allocs.memory.max_usage", 2048.0 * 1024);
        expected.put("nomad.client.allocs.memory.allocated", 256.0 * 1024 * 1024);
        expected.put("nomad.client.allocs.cpu.user", 50.0);
        expected.put("nomad.client.allocs.cpu.system", 10.0);
        expected.put("nomad.client.allocs.cpu.total_percent", 60.0);
        expected.put("nomad.client.allocs.cpu.total_ticks", 1200.0);
        expected.put("nomad.client.allocs.cpu.throttled_time", 0.0);
        expected.put("nomad.client.allocs.cpu.throttled_periods", 0.0);
        expected.put("nomad.client.allocs.cpu.allocated", 500.0);
        Map<String, Double> actual = new TreeMap<>();
        second.forEach((series, value) -> {
            assertTrue(series.endsWith(LABELS), series);
            actual.put(series.substring(0, series.length() - LABELS.length()), value);
        });
        assertEquals(expected.keySet(), actual.keySet(), "cache, mapped_file and kernel_* are neither measured nor set");
        expected.forEach((name, value) -> assertEquals(value, actual.get(name), 0.001, name));
    }

    @Test
    void aStoppedTaskDisappearsAndNothingIsPublishedUnlessAsked() {
        assertTrue(!pass().isEmpty());
        allocs.pids.clear();   // the task stopped
        assertEquals(Map.of(), pass());
        allocs.pids.put("server", List.of(4242L));
        Pass off = new Pass(false);
        routes.sample(off);
        assertEquals(Map.of(), off.gauges);
    }

    @Test
    void aDispatchedJobsTaskCarriesItsParentAndDispatchId() throws Exception {
        Allocation child = NomadJson.mapper().readValue("""
                {"ID": "a2", "Namespace": "default", "JobID": "batch/dispatch-1700000000-abcd1234",
                 "Job": {"ID": "batch/dispatch-1700000000-abcd1234", "Name": "batch/dispatch-1700000000-abcd1234",
                 "ParentID": "batch"}, "TaskGroup": "g"}""", Allocation.class);
        assertEquals(Map.of("job", "batch/dispatch-1700000000-abcd1234", "task_group", "g", "alloc_id", "a2",
                "task", "t", "namespace", "default", "parent_id", "batch", "dispatch_id", "1700000000-abcd1234"),
                AllocMetrics.labels(child, "t"));
    }
}
