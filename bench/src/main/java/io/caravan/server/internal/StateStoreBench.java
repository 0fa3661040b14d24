package io.caravan.server.internal;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.TaskState;
import io.caravan.state.StateStore;

/**
 * The state store with the server's own tables and FSM, at C1M scale: {@code jobs} service jobs of {@code per}
 * allocations each, placed by {@code PlanApply} commands of one job each (as the plan applier writes them) over
 * {@code nodes} nodes, then every allocation marked running by one {@code AllocClientUpdate} per node. Reports insert
 * time, heap after a full GC, snapshot time and size, restore time and heap after restore.
 *
 * <p>In this package (a split package on the class path, bench only) because the tables and FSM are the server
 * bundle's internals: the harness measures exactly what the server runs.
 *
 * <pre>java -Xmx12g -cp "bench/target/classes:$(cat bench/target/cp.txt)" io.caravan.server.internal.StateStoreBench 1000 1000 5000</pre>
 */
public final class StateStoreBench {
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int per = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        int nodes = args.length > 2 ? Integer.parseInt(args[2]) : 5000;
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r);
            t.setDaemon(true);
            return t;
        });
        StateStore store = StateStore.create(NomadTables.ALL, timers, timers);
        Fsm fsm = new Fsm(store);
        long index = 1;
        for (int n = 0; n < nodes; n++) {
            check(fsm.apply(index++, new Command.NodeRegister(node(n), List.of())));
        }
        long heapBefore = usedHeapAfterGc();
        long start = System.nanoTime();
        long cpu0 = processCpuNanos();
        List<String> allocIds = new ArrayList<>(jobs * per);
        for (int j = 0; j < jobs; j++) {
            Job job = job("job-" + j, per);
            check(fsm.apply(index++, new Command.JobRegister(job, Evaluation.forJob("eval-" + j, job,
                    Evaluation.TRIGGER_JOB_REGISTER, 0), false, 0)));
            Job stored = store.snapshot().get(NomadTables.JOBS, NomadTables.key("default", job.id())).orElseThrow();
            List<Allocation> placed = new ArrayList<>(per);
            for (int a = 0; a < per; a++) {
                Allocation alloc = alloc(stored, a, "node-" + ((j * per + a) % nodes));
                placed.add(alloc);
                allocIds.add(alloc.id());
            }
            check(fsm.apply(index++, new Command.PlanApply("eval-" + j, stored, List.of(), placed, 1)));
        }
        double placeSeconds = (System.nanoTime() - start) / 1e9;
        long cpu1 = processCpuNanos();
        start = System.nanoTime();
        TaskState running = NomadJson.mapper().readValue(
                "{\"State\":\"running\",\"Failed\":false,\"Restarts\":0,\"Events\":[]}", TaskState.class);
        // One command per node, as each client batches its own updates.
        Map<String, List<String>> byNode = new java.util.HashMap<>();
        for (String id : allocIds) {
            byNode.computeIfAbsent(store.snapshot().get(NomadTables.ALLOCS, id).orElseThrow().nodeId(),
                    k -> new ArrayList<>()).add(id);
        }
        for (Map.Entry<String, List<String>> e : byNode.entrySet()) {
            List<Allocation> updates = new ArrayList<>();
            for (String id : e.getValue()) {
                Allocation a = store.snapshot().get(NomadTables.ALLOCS, id).orElseThrow();
                updates.add(a.toBuilder().clientStatus("running").taskStates(Map.of("server", running)).build());
            }
            check(fsm.apply(index++, new Command.AllocClientUpdate(List.of(new Command.NodeAllocs(e.getKey(), updates)), 2,
                    List.of())));
        }
        double updateSeconds = (System.nanoTime() - start) / 1e9;
        long cpu2 = processCpuNanos();
        long heapLoaded = usedHeapAfterGc();

        Path file = Files.createTempFile("caravan-state-", ".snap");
        start = System.nanoTime();
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            store.snapshot().writeTo(out, NomadTables.codec());
        }
        double snapshotSeconds = (System.nanoTime() - start) / 1e9;
        long snapshotBytes = Files.size(file);

        fsm = null;
        store = null;
        long heapEmpty = usedHeapAfterGc();
        StateStore restored = StateStore.create(NomadTables.ALL, timers, timers);
        start = System.nanoTime();
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            restored.restore(in, NomadTables.codec());
        }
        double restoreSeconds = (System.nanoTime() - start) / 1e9;
        long heapRestored = usedHeapAfterGc();
        Files.delete(file);

        int allocs = restored.snapshot().count(NomadTables.ALLOCS);
        System.out.printf("machine: %d cores, %s %s, -Xmx%d MiB%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name"), System.getProperty("java.version"),
                Runtime.getRuntime().maxMemory() >> 20);
        System.out.printf("allocations: %,d (%d jobs x %d) on %,d nodes%n", allocs, jobs, per, nodes);
        System.out.printf("place (PlanApply per job):       %6.2f s  %,10.0f allocs/s%n", placeSeconds,
                jobs * per / placeSeconds);
        System.out.printf("client updates (per node):       %6.2f s  %,10.0f allocs/s%n", updateSeconds,
                jobs * per / updateSeconds);
        // CPU time (the JVM's, so garbage collection counts): what a loaded machine hardly changes, unlike the wall time.
        System.out.printf("place, JVM CPU:                  %6.2f s  %,10.1f us/alloc%n", (cpu1 - cpu0) / 1e9,
                (cpu1 - cpu0) / 1e3 / allocs);
        System.out.printf("client updates, JVM CPU:         %6.2f s  %,10.1f us/alloc%n", (cpu2 - cpu1) / 1e9,
                (cpu2 - cpu1) / 1e3 / allocs);
        System.out.printf("heap with state (after GC):      %,8d MiB (%,d bytes/alloc)%n",
                (heapLoaded - heapBefore) >> 20, (heapLoaded - heapBefore) / Math.max(1, allocs));
        System.out.printf("snapshot:                        %6.2f s  %,10d MiB%n", snapshotSeconds, snapshotBytes >> 20);
        System.out.printf("restore:                         %6.2f s%n", restoreSeconds);
        System.out.printf("heap after restore (after GC):   %,8d MiB%n", (heapRestored - heapEmpty) >> 20);
        timers.shutdownNow();
    }

    private static void check(Command.Result r) {
        if (r.errorCode() != 0) {
            throw new IllegalStateException(r.error());
        }
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static Node node(int n) throws IOException {
        return NomadJson.mapper().readValue("""
                {"ID": "node-%d", "SecretID": "s", "Name": "node-%d", "Datacenter": "dc1", "Status": "ready",
                 "NodePool": "default", "Attributes": {"kernel.name": "linux", "driver.raw_exec": "1",
                 "unique.hostname": "node-%d", "cpu.numcores": "8"}, "Meta": {"rack": "r%d"},
                 "NodeResources": {"Cpu": {"CpuShares": 16000}, "Memory": {"MemoryMB": 32768},
                                   "Disk": {"DiskMB": 100000}, "MinDynamicPort": 20000, "MaxDynamicPort": 32000}}
                """.formatted(n, n, n, n % 25), Node.class);
    }

    private static Job job(String id, int count) throws IOException {
        return Jobs.canonical(NomadJson.mapper().readTree("""
                {"Job": {"ID": "%s", "Datacenters": ["dc1"],
                  "Constraints": [{"LTarget": "${attr.kernel.name}", "RTarget": "linux", "Operand": "="}],
                  "TaskGroups": [{"Name": "web", "Count": %d,
                  "Tasks": [{"Name": "server", "Driver": "raw_exec", "Config": {"command": "/bin/sleep"},
                             "Resources": {"CPU": 10, "MemoryMB": 16}}]}]}}
                """.formatted(id, count)), "global");
    }

    private static Allocation alloc(Job job, int index, String nodeId) throws IOException {
        Allocation a = NomadJson.mapper().readValue("""
                {"ID": "%s", "Namespace": "default", "EvalID": "eval", "Name": "%s.web[%d]", "NodeID": "%s",
                 "NodeName": "%s", "JobID": "%s", "TaskGroup": "web", "DesiredStatus": "run",
                 "ClientStatus": "pending", "CreateTime": 1, "ModifyTime": 1}
                """.formatted(UUID.randomUUID(), job.id(), index, nodeId, nodeId, job.id()), Allocation.class);
        AllocatedResources resources = NomadJson.mapper().readValue("""
                {"Tasks": {"server": {"Cpu": {"CpuShares": 10}, "Memory": {"MemoryMB": 16}}},
                 "Shared": {"DiskMB": 300}}
                """, AllocatedResources.class);
        return a.toBuilder().allocatedResources(resources).build();
    }
}
