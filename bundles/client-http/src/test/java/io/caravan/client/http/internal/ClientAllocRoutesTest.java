package io.caravan.client.http.internal;

import static io.caravan.client.http.internal.ClientFsRoutesTest.assertStatus;
import static io.caravan.client.http.internal.ClientFsRoutesTest.fieldNames;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

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
    void checksAnswerEachCheckByIdAndAnUnknownAllocIsNotFound() throws Exception {
        allocs.checkResults.put("c1", Map.of("ID", "c1", "Status", "success"));
        JsonNode json = NomadJson.mapper().valueToTree(routes.checks(TestRequest.get(ALLOC, "")).body());
        assertEquals("success", json.path("c1").path("Status").asText());
        assertStatus(404, () -> routes.checks(TestRequest.get("zz", "")));
        assertEquals("namespace:read-job", ClientAllocRoutes.CHECKS.rule().describe());
    }

    @Test
    void gcCollectsAFinishedAllocation() {
        assertNull(routes.gc(TestRequest.get(ALLOC, "")).body());
        assertEquals("No such allocation on client, or allocation not eligible for GC",
                assertStatus(500, () -> routes.gc(TestRequest.get(TestAllocs.RUNNING, ""))).getMessage());
        assertStatus(404, () -> routes.gc(TestRequest.get("zz", "")));
    }

    @Test
    void statsHaveNomadsShapeWithNothingMeasuredForATaskWithoutProcesses() throws Exception {
        allocs.pids.put("sidecar", List.of());
        JsonNode json = NomadJson.mapper().valueToTree(routes.stats(TestRequest.get(ALLOC, "")).body());
        assertEquals(List.of("ResourceUsage", "Tasks", "Timestamp"), fieldNames(json));
        assertEquals(1700000000_000000005L, json.get("Timestamp").asLong());
        JsonNode usage = json.get("ResourceUsage");
        assertEquals(List.of("MemoryStats", "CpuStats", "DeviceStats"), fieldNames(usage));
        assertEquals(0, usage.get("MemoryStats").get("RSS").asLong());
        assertEquals(0, usage.get("MemoryStats").get("Measured").size());
        assertEquals(0.0, usage.get("CpuStats").get("Percent").asDouble());
        assertEquals(List.of("sidecar"), fieldNames(json.get("Tasks")));
        assertEquals(List.of("ResourceUsage", "Timestamp", "Pids"), fieldNames(json.get("Tasks").get("sidecar")));
        assertStatus(404, () -> routes.stats(TestRequest.get("zz", "")));
    }

    /** Captured /proc files: the task's process used 50 user and 10 system ticks in the second between readings. */
    @Test
    void statsMeasureTheTasksProcessesFromProc() throws Exception {
        Path proc = Files.createDirectories(temp.resolve("proc"));
        Files.createDirectories(proc.resolve("4242"));
        Files.writeString(proc.resolve("4242/stat"), stat(250, 50));
        Files.writeString(proc.resolve("4242/status"), "Name:\tsleep\nVmRSS:\t    2048 kB\nVmSwap:\t      16 kB\n");
        Files.writeString(proc.resolve("cpuinfo"), "processor\t: 0\ncpu MHz\t\t: 2000.000\nprocessor\t: 1\n"
                + "cpu MHz\t\t: 2000.000\n");
        AtomicLong nanos = new AtomicLong(5_000_000_000L);
        routes = new ClientAllocRoutes(allocs, Clock.fixed(Instant.ofEpochSecond(1700000000, 5), ZoneOffset.UTC),
                new ProcFs(proc), nanos::get, wait -> {
                    nanos.addAndGet(1_000_000_000L);
                    Files.writeString(proc.resolve("4242/stat"), stat(300, 60));
                });
        allocs.pids.put("web", List.of(4242L, 999999L));   // the second is gone: skipped
        JsonNode json = NomadJson.mapper().valueToTree(routes.stats(TestRequest.get(ALLOC, "")).body());
        JsonNode web = json.get("Tasks").get("web").get("ResourceUsage");
        assertEquals(2048 * 1024, web.get("MemoryStats").get("RSS").asLong());
        assertEquals(16 * 1024, web.get("MemoryStats").get("Swap").asLong());
        assertEquals(2048 * 1024, web.get("MemoryStats").get("MaxUsage").asLong());
        assertEquals("[\"RSS\",\"Swap\"]", web.get("MemoryStats").get("Measured").toString());
        assertEquals(50.0, web.get("CpuStats").get("UserMode").asDouble(), 0.001);
        assertEquals(10.0, web.get("CpuStats").get("SystemMode").asDouble(), 0.001);
        assertEquals(60.0, web.get("CpuStats").get("Percent").asDouble(), 0.001);
        assertEquals(1200.0, web.get("CpuStats").get("TotalTicks").asDouble(), 0.001);
        assertEquals(List.of("4242"), fieldNames(json.get("Tasks").get("web").get("Pids")));
        assertEquals(2048 * 1024, json.get("ResourceUsage").get("MemoryStats").get("RSS").asLong());
    }

    @Test
    void hostStatsFromProc() throws Exception {
        Path proc = Files.createDirectories(temp.resolve("proc"));
        Files.writeString(proc.resolve("stat"), "cpu  200 0 100 700 0 0 0 0 0 0\n"
                + "cpu0 100 0 50 350 0 0 0 0 0 0\ncpu1 100 0 50 350 0 0 0 0 0 0\nintr 1 2 3\n");
        Files.writeString(proc.resolve("meminfo"), "MemTotal:        1000 kB\nMemFree:          200 kB\n"
                + "MemAvailable:     600 kB\n");
        Files.writeString(proc.resolve("uptime"), "12345.67 2345.00\n");
        Files.writeString(proc.resolve("cpuinfo"), "cpu MHz\t\t: 1000.000\ncpu MHz\t\t: 1000.000\n");
        Files.writeString(proc.resolve("mounts"), "proc /proc proc rw 0 0\n/dev/sda1 " + temp + " ext4 rw 0 0\n");
        AtomicLong nanos = new AtomicLong(1);
        routes = new ClientAllocRoutes(allocs, Clock.fixed(Instant.ofEpochSecond(1700000000, 5), ZoneOffset.UTC),
                new ProcFs(proc), nanos::get, wait -> {
                    nanos.addAndGet(1_000_000_000L);
                    // cpu0: 100 ticks, 60 user, 20 system, 20 idle; cpu1 idle
                    Files.writeString(proc.resolve("stat"), "cpu  260 0 120 820 0 0 0 0 0 0\n"
                            + "cpu0 160 0 70 370 0 0 0 0 0 0\ncpu1 100 0 50 450 0 0 0 0 0 0\n");
                });
        JsonNode json = NomadJson.mapper().valueToTree(routes.hostStats(TestRequest.get(ALLOC, "")).body());
        assertEquals(List.of("Memory", "CPU", "DiskStats", "DeviceStats", "Uptime", "Timestamp", "CPUTicksConsumed"),
                fieldNames(json));
        assertEquals("{\"Total\":1024000,\"Available\":614400,\"Used\":409600,\"Free\":204800}",
                json.get("Memory").toString());
        assertEquals(12345, json.get("Uptime").asLong());
        JsonNode cpu0 = json.get("CPU").get(0);
        assertEquals("cpu0", cpu0.get("CPU").asText());
        assertEquals(60.0, cpu0.get("User").asDouble(), 0.001);
        assertEquals(20.0, cpu0.get("System").asDouble(), 0.001);
        assertEquals(20.0, cpu0.get("Idle").asDouble(), 0.001);
        assertEquals(80.0, cpu0.get("Total").asDouble(), 0.001);
        assertEquals(0.0, json.get("CPU").get(1).get("Total").asDouble(), 0.001);
        assertEquals(800.0, json.get("CPUTicksConsumed").asDouble(), 0.001);
        assertEquals(1, json.get("DiskStats").size());
        assertEquals("/dev/sda1", json.get("DiskStats").get(0).get("Device").asText());
        assertTrue(json.get("DiskStats").get(0).get("Size").asLong() > 0);
        assertStatus(400, () -> routes.hostStats(TestRequest.get(ALLOC, "node_id=other-node")));
    }

    /** A /proc/<pid>/stat line whose command name holds a space and parentheses, as real ones may. */
    static String stat(long utime, long stime) {
        return "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 100 0 0 0 " + utime + " " + stime
                + " 0 0 20 0 1 0 12345 1000000 300 18446744073709551615\n";
    }

    /** A fake cgroup v1 tree and /proc: the exec task's own memory and cpu,cpuacct cgroups, the client elsewhere. */
    @Test
    void statsOfATaskInACgroupV1ComeFromItsCgroup() throws Exception {
        Path proc = Files.createDirectories(temp.resolve("proc"));
        Path cg = temp.resolve("cgroup");
        String task = "/caravan/a1.web";
        Files.createDirectories(proc.resolve("self"));
        Files.createDirectories(proc.resolve("4242"));
        Files.writeString(proc.resolve("self/cgroup"), "4:memory:/agent\n2:cpu,cpuacct:/agent\n0::/\n");
        Files.writeString(proc.resolve("4242/cgroup"), "4:memory:" + task + "\n2:cpu,cpuacct:" + task + "\n0::/\n");
        Files.writeString(proc.resolve("4242/stat"), stat(250, 50));
        Files.writeString(proc.resolve("4242/status"), "VmRSS:\t    2048 kB\n");
        Files.writeString(proc.resolve("cpuinfo"), "cpu MHz\t\t: 1000.000\n");
        Path memory = Files.createDirectories(cg.resolve("memory").resolve(task.substring(1)));
        Path cpu = Files.createDirectories(cg.resolve("cpu,cpuacct").resolve(task.substring(1)));
        Files.writeString(memory.resolve("memory.stat"), "cache 4096\nrss 1048576\nmapped_file 0\nswap 512\n"
                + "total_rss 1048576\n");
        Files.writeString(memory.resolve("memory.usage_in_bytes"), "1056768\n");
        Files.writeString(memory.resolve("memory.max_usage_in_bytes"), "2097152\n");
        Files.writeString(cpu.resolve("cpuacct.usage"), "1000000000\n");
        Files.writeString(cpu.resolve("cpuacct.stat"), "user 80\nsystem 20\n");
        Files.writeString(cpu.resolve("cpu.stat"), "nr_periods 10\nnr_throttled 3\nthrottled_time 7000000\n");
        AtomicLong nanos = new AtomicLong(5_000_000_000L);
        routes = new ClientAllocRoutes(allocs, Clock.fixed(Instant.ofEpochSecond(1700000000, 5), ZoneOffset.UTC),
                new ProcFs(proc), new CgroupFs(cg, proc), nanos::get, wait -> {
                    // one second: 0.5 s of CPU, 0.3 s user and 0.2 s system
                    nanos.addAndGet(1_000_000_000L);
                    Files.writeString(cpu.resolve("cpuacct.usage"), "1500000000\n");
                    Files.writeString(cpu.resolve("cpuacct.stat"), "user 110\nsystem 40\n");
                });
        allocs.pids.put("web", List.of(4242L));
        JsonNode json = NomadJson.mapper().valueToTree(routes.stats(TestRequest.get(ALLOC, "")).body());
        JsonNode web = json.get("Tasks").get("web").get("ResourceUsage");
        JsonNode mem = web.get("MemoryStats");
        assertEquals(1048576, mem.get("RSS").asLong());
        assertEquals(4096, mem.get("Cache").asLong());
        assertEquals(512, mem.get("Swap").asLong());
        assertEquals(1056768, mem.get("Usage").asLong());
        assertEquals(2097152, mem.get("MaxUsage").asLong());
        assertEquals("[\"RSS\",\"Cache\",\"Swap\",\"Usage\",\"Max Usage\"]", mem.get("Measured").toString());
        JsonNode c = web.get("CpuStats");
        assertEquals(50.0, c.get("Percent").asDouble(), 0.001);
        assertEquals(30.0, c.get("UserMode").asDouble(), 0.001);
        assertEquals(20.0, c.get("SystemMode").asDouble(), 0.001);
        assertEquals(500.0, c.get("TotalTicks").asDouble(), 0.001);
        assertEquals(3, c.get("ThrottledPeriods").asLong());
        assertEquals(7000000, c.get("ThrottledTime").asLong());
        assertEquals("[\"System Mode\",\"User Mode\",\"Throttled Periods\",\"Throttled Time\",\"Percent\"]",
                c.get("Measured").toString());
    }

    /** cgroup v2: cpu.stat in microseconds, memory.current, anon/file, no memory.peak on an older kernel. */
    @Test
    void statsOfATaskInACgroupV2ComeFromItsCgroupAndRawExecInTheClientsCgroupFromProc() throws Exception {
        Path proc = Files.createDirectories(temp.resolve("proc"));
        Path cg = temp.resolve("cgroup");
        Files.createDirectories(proc.resolve("self"));
        Files.createDirectories(proc.resolve("4242"));
        Files.createDirectories(proc.resolve("4343"));
        Files.writeString(proc.resolve("self/cgroup"), "0::/system.slice/caravan.service\n");
        Files.writeString(proc.resolve("4242/cgroup"), "0::/caravan.slice/a1.web.scope\n");
        Files.writeString(proc.resolve("4343/cgroup"), "0::/system.slice/caravan.service\n");
        for (String pid : List.of("4242", "4343")) {
            Files.writeString(proc.resolve(pid + "/stat"), stat(250, 50));
            Files.writeString(proc.resolve(pid + "/status"), "VmRSS:\t    2048 kB\n");
        }
        Path dir = Files.createDirectories(cg.resolve("caravan.slice/a1.web.scope"));
        Files.writeString(dir.resolve("cpu.stat"), "usage_usec 2000000\nuser_usec 1500000\nsystem_usec 500000\n"
                + "nr_periods 0\nnr_throttled 0\nthrottled_usec 0\n");
        Files.writeString(dir.resolve("memory.current"), "3145728\n");
        Files.writeString(dir.resolve("memory.stat"), "anon 2097152\nfile 1048576\nfile_mapped 4096\n");
        Files.writeString(dir.resolve("memory.swap.current"), "0\n");
        AtomicLong nanos = new AtomicLong(5_000_000_000L);
        routes = new ClientAllocRoutes(allocs, Clock.fixed(Instant.ofEpochSecond(1700000000, 5), ZoneOffset.UTC),
                new ProcFs(proc), new CgroupFs(cg, proc), nanos::get, wait -> {
                    nanos.addAndGet(2_000_000_000L);
                    Files.writeString(dir.resolve("cpu.stat"), "usage_usec 3000000\nuser_usec 2000000\n"
                            + "system_usec 1000000\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n");
                });
        allocs.pids.put("web", List.of(4242L));
        allocs.pids.put("sidecar", List.of(4343L));
        JsonNode json = NomadJson.mapper().valueToTree(routes.stats(TestRequest.get(ALLOC, "")).body());
        JsonNode web = json.get("Tasks").get("web").get("ResourceUsage");
        assertEquals(2097152, web.get("MemoryStats").get("RSS").asLong());
        assertEquals(1048576, web.get("MemoryStats").get("Cache").asLong());
        assertEquals(3145728, web.get("MemoryStats").get("Usage").asLong());
        assertEquals(3145728, web.get("MemoryStats").get("MaxUsage").asLong(), "highest usage seen, without peak");
        assertEquals("[\"RSS\",\"Cache\",\"Swap\",\"Usage\"]", web.get("MemoryStats").get("Measured").toString());
        assertEquals(50.0, web.get("CpuStats").get("Percent").asDouble(), 0.001);
        assertEquals(25.0, web.get("CpuStats").get("UserMode").asDouble(), 0.001);
        JsonNode sidecar = json.get("Tasks").get("sidecar").get("ResourceUsage");
        assertEquals("[\"RSS\",\"Swap\"]", sidecar.get("MemoryStats").get("Measured").toString(),
                "in the client's own cgroup (raw_exec): from /proc");
        assertEquals(2048 * 1024, sidecar.get("MemoryStats").get("RSS").asLong());
    }

    /**
     * cpu and cpuacct mounted apart (this host's layout): the exec driver's task has its own memory and cpu cgroups but
     * stays in the client's cpuacct one, whose usage is not the task's: CPU comes from /proc, throttling and memory
     * from its cgroups.
     */
    @Test
    void aTaskOutsideACpuacctCgroupOfItsOwnTakesItsCpuTimesFromProc() throws Exception {
        Path proc = Files.createDirectories(temp.resolve("proc"));
        Path cg = temp.resolve("cgroup");
        String task = "/caravan/a1.web";
        Files.createDirectories(proc.resolve("self"));
        Files.createDirectories(proc.resolve("4242"));
        Files.writeString(proc.resolve("self/cgroup"), "4:memory:/agent\n2:cpuacct:/\n1:cpu:/\n");
        Files.writeString(proc.resolve("4242/cgroup"), "4:memory:" + task + "\n2:cpuacct:/\n1:cpu:" + task + "\n");
        Files.writeString(proc.resolve("4242/stat"), stat(250, 50));
        Files.writeString(proc.resolve("4242/status"), "VmRSS:\t    2048 kB\n");
        Path memory = Files.createDirectories(cg.resolve("memory").resolve(task.substring(1)));
        Path cpu = Files.createDirectories(cg.resolve("cpu").resolve(task.substring(1)));
        Files.writeString(Files.createDirectories(cg.resolve("cpuacct")).resolve("cpuacct.usage"), "999999999999\n");
        Files.writeString(memory.resolve("memory.stat"), "cache 0\nrss 4096\n");
        Files.writeString(memory.resolve("memory.usage_in_bytes"), "4096\n");
        Files.writeString(memory.resolve("memory.max_usage_in_bytes"), "8192\n");
        Files.writeString(cpu.resolve("cpu.stat"), "nr_periods 4\nnr_throttled 1\nthrottled_time 5\n");
        AtomicLong nanos = new AtomicLong(5_000_000_000L);
        routes = new ClientAllocRoutes(allocs, Clock.fixed(Instant.ofEpochSecond(1700000000, 5), ZoneOffset.UTC),
                new ProcFs(proc), new CgroupFs(cg, proc), nanos::get, wait -> {
                    nanos.addAndGet(1_000_000_000L);
                    Files.writeString(proc.resolve("4242/stat"), stat(300, 60));
                });
        allocs.pids.put("web", List.of(4242L));
        JsonNode web = NomadJson.mapper().valueToTree(routes.stats(TestRequest.get(ALLOC, "")).body())
                .get("Tasks").get("web").get("ResourceUsage");
        assertEquals(60.0, web.get("CpuStats").get("Percent").asDouble(), 0.001);
        assertEquals(1, web.get("CpuStats").get("ThrottledPeriods").asLong());
        assertEquals("[\"System Mode\",\"User Mode\",\"Throttled Periods\",\"Throttled Time\",\"Percent\"]",
                web.get("CpuStats").get("Measured").toString());
        assertEquals("[\"RSS\",\"Cache\",\"Usage\",\"Max Usage\"]", web.get("MemoryStats").get("Measured").toString(),
                "no swap accounting in memory.stat: Swap not measured");
        assertEquals(8192, web.get("MemoryStats").get("MaxUsage").asLong());
    }
}
