package io.caravan.client.internal;

import static io.caravan.client.internal.testing.Fixtures.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.AllocDeploymentStatus;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.api.model.TaskState;
import io.caravan.client.internal.testing.Fixtures;
import io.caravan.client.internal.testing.InMemoryNodeEndpoint;
import io.caravan.client.internal.testing.ProcessTestDriver;
import io.caravan.plugin.api.fingerprint.FingerprintResult.HostResources;
import io.caravan.plugin.api.fingerprint.FingerprintResult;
import io.caravan.plugin.api.fingerprint.Fingerprinter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A whole client in the JVM against an in-memory server: register, heartbeat to ready, run an allocation. */
class ClientEndToEndTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dataDir;

    private final InMemoryNodeEndpoint server = new InMemoryNodeEndpoint();
    private final ProcessTestDriver driver = new ProcessTestDriver();
    private Client client;

    @BeforeEach
    void setUp() {
        server.heartbeatTtl(Duration.ofSeconds(1));
        ClientSettings settings = ClientSettings.from(Map.of("node.class", "batch-nodes", "meta.rack", "r1",
                "reserved.cpu", 100L, "reserved.memory", 256L), dataDir);
        client = new Client(settings, Fixtures.agent("node-1", dataDir), Clock.systemUTC(), Fixtures.fastTiming());
        Fingerprinter host = soFar -> new FingerprintResult(Map.of("kernel.name", "linux",
                "unique.network.ip-address", "127.0.0.1"), Map.of(), new HostResources(4000, 2, 8192, 100_000));
        client.bindFingerprinter("host", "host", host);
        client.bindDriver("test", driver);
        client.start();
        client.endpoint(server);
    }

    @AfterEach
    void tearDown() {
        client.close();
        server.close();
    }

    @Test
    void registersWithFingerprintsAndDriversThenBecomesReady() {
        await(WAIT, "ready", () -> server.statusUpdates.contains(Node.STATUS_READY));
        await(WAIT, "node with attributes and drivers", () -> {
            Node n = server.node("node-1");
            return n != null && "1".equals(n.attributes().get("driver.test"))
                    && "linux".equals(n.attributes().get("kernel.name"));
        });
        Node node = server.node("node-1");
        assertEquals(client.secretId(), node.secretId());
        assertEquals("dc1", node.datacenter());
        assertEquals("batch-nodes", node.nodeClass());
        assertEquals("default", node.nodePool());
        assertEquals(Map.of("rack", "r1"), node.meta());
        assertEquals("127.0.0.1:4646", node.httpAddr());
        assertEquals("0.1.0", node.attributes().get("nomad.version"));
        assertEquals("0.1.0", node.attributes().get("caravan.version"));
        assertEquals("127.0.0.1:4646", node.attributes().get("unique.advertise.address"));
        assertEquals("1", node.attributes().get("driver.test.version"));
        assertTrue(node.drivers().get("test").healthy());
        assertEquals(4000, node.nodeResources().cpu().cpuShares());
        assertEquals(8192, node.nodeResources().memory().memoryMb());
        assertEquals("127.0.0.1", node.nodeResources().networks().get(0).ip());
        assertEquals(20000, node.nodeResources().minDynamicPort());
        assertEquals(32000, node.nodeResources().maxDynamicPort());
        assertEquals(100, node.reservedResources().cpu().cpuShares());
        assertEquals(256, node.reservedResources().memory().memoryMb());
        // Status ready is only asked for after the first alloc sync: no "ready" before an initial registration.
        assertEquals(Node.STATUS_INITIALIZING, server.registrations.get(0).status());
    }

    @Test
    void aPlacedAllocationRunsAndIsReportedRunningThenComplete() throws Exception {
        await(WAIT, "ready", () -> server.statusUpdates.contains(Node.STATUS_READY));
        Allocation alloc = Fixtures.alloc("node-1", "hello", "batch", Map.of(),
                Fixtures.shTask("say", "sleep 0.5; echo \"hi from $NOMAD_JOB_NAME\""));
        server.place(alloc);

        await(WAIT, "complete", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_COMPLETE));
        List<String> statuses = server.reportedStatuses(alloc.id());
        assertTrue(statuses.indexOf(Allocation.CLIENT_RUNNING) >= 0, statuses.toString());
        assertTrue(statuses.indexOf(Allocation.CLIENT_RUNNING) < statuses.indexOf(Allocation.CLIENT_COMPLETE),
                statuses.toString());
        Allocation last = server.allocUpdates.stream().flatMap(List::stream).filter(a -> a.id().equals(alloc.id()))
                .reduce((a, b) -> b).orElseThrow();
        assertEquals(TaskState.STATE_DEAD, last.taskStates().get("say").state());
        Path allocDir = client.allocDir(alloc.id()).orElseThrow();
        assertEquals(dataDir.resolve("alloc").resolve(alloc.id()), allocDir);
        assertEquals("hi from hello\n", Files.readString(allocDir.resolve("alloc/logs/say.stdout.0")));
        assertEquals(Allocation.CLIENT_COMPLETE, server.alloc(alloc.id()).clientStatus());

        // The servers garbage-collect it: the client destroys its directory and state.
        server.remove(alloc.id());
        await(WAIT, "destroyed", () -> client.allocDir(alloc.id()).isEmpty());
        await(WAIT, "dir removed", () -> !Files.exists(allocDir));
        assertFalse(Files.exists(dataDir.resolve("client/allocs/" + alloc.id() + ".json")));
    }

    @Test
    void aStoppedAllocationIsKilled() {
        Allocation alloc = Fixtures.alloc("node-1", "web", "service", Map.of(), Fixtures.shTask("web", "sleep 60"));
        server.place(alloc);
        await(WAIT, "running", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_RUNNING));
        server.stopAlloc(alloc.id());
        await(WAIT, "complete", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_COMPLETE));
    }

    @Test
    void cutOffPastStopOnClientAfterTheClientStopsTheAllocationItself() throws Exception {
        await(WAIT, "ready", () -> server.statusUpdates.contains(Node.STATUS_READY));
        Allocation alloc = Fixtures.alloc("node-1", "edge", "service",
                Map.of("Disconnect", Map.of("StopOnClientAfter", 2_000_000_000L)), Fixtures.shTask("web", "sleep 60"));
        Allocation other = Fixtures.alloc("node-1", "plain", "service", Map.of(), Fixtures.shTask("web", "sleep 60"));
        server.place(alloc);
        server.place(other);
        await(WAIT, "running", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_RUNNING)
                && server.reportedStatuses(other.id()).contains(Allocation.CLIENT_RUNNING));

        server.unreachable(true);
        Thread.sleep(4_500); // past the 2 s window and the once-a-second check
        server.unreachable(false);
        await(WAIT, "reported stopped", () -> server.reportedStatuses(alloc.id())
                .contains(Allocation.CLIENT_COMPLETE));
        assertFalse(server.reportedStatuses(other.id()).contains(Allocation.CLIENT_COMPLETE),
                "a group without the window keeps running");
        server.stopAlloc(other.id());
    }

    @Test
    void aDriverThatLeavesParksItsTasksAndTheNextOneRecoversThem() {
        Allocation alloc = Fixtures.alloc("node-1", "web", "service", Map.of(), Fixtures.shTask("web", "sleep 60"));
        server.place(alloc);
        await(WAIT, "running", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_RUNNING));
        var id = new io.caravan.plugin.api.driver.TaskId(alloc.id(), "web");
        ProcessHandle process = driver.process(id);

        client.unbindDriver("test", driver);
        await(WAIT, "driver gone from node", () -> !server.node("node-1").drivers().containsKey("test"));
        assertTrue(process.isAlive(), "a driver leaving never kills a workload");
        assertEquals(TaskState.STATE_RUNNING, client.runner(alloc.id()).orElseThrow().states().get("web").state());

        ProcessTestDriver updated = new ProcessTestDriver();
        client.bindDriver("test", updated);
        await(WAIT, "recovered", () -> updated.recovered.size() == 1);
        assertEquals(process.pid(), Long.parseLong(updated.recovered.get(0).driverState().get("pid")));

        server.stopAlloc(alloc.id());
        await(WAIT, "complete", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_COMPLETE));
        await(WAIT, "process gone", () -> !process.isAlive());
    }

    @Test
    void allocRestartStopsAndStartsTheTaskWithoutCountingAgainstThePolicy() {
        Allocation alloc = Fixtures.alloc("node-1", "web", "service", Map.of(), Fixtures.shTask("web", "sleep 60"));
        server.place(alloc);
        await(WAIT, "running", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_RUNNING));

        client.restart(alloc.id(), "web");
        await(WAIT, "started twice", () -> driver.started.size() == 2
                && TaskState.STATE_RUNNING.equals(client.runner(alloc.id()).orElseThrow().states().get("web").state()));
        TaskState state = client.runner(alloc.id()).orElseThrow().states().get("web");
        List<String> types = state.events().stream().map(e -> e.type()).toList();
        assertEquals(List.of("Received", "Task Setup", "Started", "Restart Signaled", "Terminated", "Restarting",
                "Started"), types);
        assertEquals(1, state.restarts());
        assertFalse(state.failed());
        assertEquals("User requested task to restart", state.events().get(3).displayMessage());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> client.restart(alloc.id(), "nope"));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> client.restart("no-such-alloc", null));
        server.stopAlloc(alloc.id());
        await(WAIT, "complete", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_COMPLETE));
    }

    @Test
    void aForgottenNodeRegistersAgainAndResendsItsAllocations() {
        Allocation alloc = Fixtures.alloc("node-1", "web", "service", Map.of(), Fixtures.shTask("web", "sleep 60"));
        server.place(alloc);
        await(WAIT, "running", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_RUNNING));
        await(WAIT, "ready", () -> server.statusUpdates.contains(Node.STATUS_READY));
        int registrations = server.registrations.size();
        int updates = server.allocUpdates.size();

        server.forgetNode("node-1");
        await(WAIT, "registered again", () -> server.registrations.size() > registrations);
        await(WAIT, "allocations resent", () -> server.allocUpdates.stream().skip(updates).flatMap(List::stream)
                .anyMatch(a -> a.id().equals(alloc.id()) && Allocation.CLIENT_RUNNING.equals(a.clientStatus())));
        server.stopAlloc(alloc.id());
        await(WAIT, "complete", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_COMPLETE));
    }

    @Test
    void allocSignalReachesTheTask() throws Exception {
        Allocation alloc = Fixtures.alloc("node-1", "web", "service", Map.of(), Fixtures.shTask("web",
                "trap 'echo got-usr1 >> \"$NOMAD_TASK_DIR/signals\"' USR1; echo up > \"$NOMAD_TASK_DIR/up\"; "
                        + "while true; do sleep 0.05; done"));
        server.place(alloc);
        await(WAIT, "running", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_RUNNING));
        Path local = client.allocDir(alloc.id()).orElseThrow().resolve("web/local");
        await(WAIT, "trap installed", () -> Files.exists(local.resolve("up")));

        client.signal(alloc.id(), "web", "SIGUSR1");
        await(WAIT, "signal handled", () -> Files.exists(local.resolve("signals")));
        assertEquals("got-usr1\n", Files.readString(local.resolve("signals")));
        TaskState state = client.runner(alloc.id()).orElseThrow().states().get("web");
        assertEquals("Task being sent a signal", state.events().get(state.events().size() - 1).displayMessage());
        assertEquals("SIGUSR1", state.events().get(state.events().size() - 1).details().get("signal"));
        server.stopAlloc(alloc.id());
        await(WAIT, "complete", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_COMPLETE));
    }

    @Test
    void anAllocationOfADeploymentReportsItsHealthOnceThroughUpdateAlloc() {
        await(WAIT, "ready", () -> server.statusUpdates.contains(Node.STATUS_READY));
        Map<String, Object> update = Map.of("HealthCheck", "task_states",
                "MinHealthyTime", Duration.ofMillis(300).toNanos(), "HealthyDeadline", Duration.ofSeconds(20).toNanos());
        Allocation alloc = Fixtures.alloc("node-1", "web", "service", Map.of("Update", update),
                Fixtures.shTask("web", "sleep 60")).toBuilder().deploymentId("dep-1")
                .deploymentStatus(new AllocDeploymentStatus(null, null, true, 3)).build();
        server.place(alloc);

        await(WAIT, "health reported", () -> !healthReports(alloc.id()).isEmpty());
        AllocDeploymentStatus reported = healthReports(alloc.id()).get(0);
        assertEquals(Boolean.TRUE, reported.healthy());
        assertTrue(reported.canary());
        Allocation carrying = server.allocUpdates.stream().flatMap(List::stream)
                .filter(a -> a.id().equals(alloc.id()) && a.deploymentStatus() != null
                        && a.deploymentStatus().healthy() != null).findFirst().orElseThrow();
        assertEquals("dep-1", carrying.deploymentId());
        assertEquals(Allocation.CLIENT_RUNNING, carrying.clientStatus());

        server.stopAlloc(alloc.id());
        await(WAIT, "complete", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_COMPLETE));
        assertEquals(1, healthReports(alloc.id()).stream().map(AllocDeploymentStatus::timestamp).distinct().count(),
                "decided once, whatever else is reported afterwards");
    }

    private List<AllocDeploymentStatus> healthReports(String allocId) {
        return server.allocUpdates.stream().flatMap(List::stream).filter(a -> a.id().equals(allocId))
                .map(Allocation::deploymentStatus).filter(s -> s != null && s.healthy() != null).toList();
    }
}
