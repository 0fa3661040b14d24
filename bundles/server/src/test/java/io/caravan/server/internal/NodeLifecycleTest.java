package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.state.StateStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** ARCHITECTURE §5 through the FSM: a reconnecting node is ready only after its allocations were synced. */
class NodeLifecycleTest {
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final StateStore store = StateStore.create(NomadTables.ALL, timers, timers);
    private final Fsm fsm = new Fsm(store);

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    static Node node(String id, String status) throws Exception {
        return io.caravan.api.json.NomadJson.mapper().readValue("""
                {"ID": "%s", "SecretID": "s", "Name": "n1", "Datacenter": "dc1", "Status": "%s"}
                """.formatted(id, status), Node.class);
    }

    private String status() {
        return store.snapshot().get(NomadTables.NODES, "n").orElseThrow().status();
    }

    private Command.Result apply(long index, Command c) {
        return fsm.apply(index, CommandCodec.decode(CommandCodec.encode(c)));
    }

    @Test
    void reconnectOrderIsEnforcedWhateverTheClientAsks() throws Exception {
        apply(1, new Command.NodeRegister(node("n", "ready"), List.of()));
        assertEquals("initializing", status(), "a new node starts initializing, whatever it sends");
        apply(2, new Command.NodeStatusUpdate("n", "ready", 2, List.of()));
        assertEquals("ready", status(), "a new node needs no sync");
        placeOne(3); // indexes 3 and 4

        apply(5, new Command.NodeStatusUpdate("n", "down", 5, List.of()));
        assertEquals("down", status());
        apply(6, new Command.AllocClientUpdate(List.of(new Command.NodeAllocs("n", List.of())), 6, List.of()));
        apply(7, new Command.NodeStatusUpdate("n", "ready", 7, List.of()));
        assertEquals("initializing", status(), "an update sent while down does not count as the sync");

        apply(8, new Command.NodeRegister(node("n", "ready"), List.of()));
        assertEquals("initializing", status(), "register never changes a known node's status");
        apply(9, new Command.NodeStatusUpdate("n", "ready", 9, List.of()));
        assertEquals("initializing", status(), "ready only after an alloc update since the miss");

        assertEquals(0, apply(10, new Command.AllocClientUpdate(List.of(new Command.NodeAllocs("n", List.of())),
                10, List.of())).errorCode());
        apply(11, new Command.NodeStatusUpdate("n", "ready", 11, List.of()));
        assertEquals("ready", status());
        assertEquals(0, store.snapshot().get(NomadTables.NODES, "n").orElseThrow().lastMissedHeartbeatIndex(),
                "the miss is settled");
    }

    @Test
    void aDisconnectedNodeAlwaysPassesThroughInitializingAndANodeWithNothingToSyncDoesNot() throws Exception {
        apply(1, new Command.NodeRegister(node("n", "initializing"), List.of()));
        apply(2, new Command.NodeStatusUpdate("n", "ready", 2, List.of()));
        apply(3, new Command.NodeStatusUpdate("n", "disconnected", 3, List.of()));
        apply(4, new Command.NodeRegister(node("n", "ready"), List.of()));
        assertEquals("disconnected", status(), "register does not reconnect a node");
        apply(5, new Command.NodeStatusUpdate("n", "ready", 5, List.of()));
        assertEquals("initializing", status());
        apply(6, new Command.NodeStatusUpdate("n", "ready", 6, List.of()));
        assertEquals("ready", status(), "no live allocation on it: nothing to wait for");

        apply(7, new Command.NodeStatusUpdate("n", "down", 7, List.of()));
        apply(8, new Command.NodeStatusUpdate("n", "ready", 8, List.of()));
        assertEquals("ready", status(), "a down node without live allocations is ready at its first heartbeat");
    }

    private void placeOne(long index) throws Exception {
        var job = FsmTest.job("web", 50);
        apply(index, new Command.JobRegister(job, io.caravan.api.model.Evaluation.forJob("e", job, "job-register",
                0), false, 0));
        Allocation placed = io.caravan.api.json.NomadJson.mapper().readValue("""
                {"ID": "a1", "Namespace": "default", "EvalID": "e", "Name": "web.web[0]", "NodeID": "n",
                 "JobID": "web", "TaskGroup": "web", "DesiredStatus": "run", "ClientStatus": "running"}
                """, Allocation.class);
        apply(index + 1, new Command.PlanApply("e", store.snapshot().get(NomadTables.JOBS, "default\0web")
                .orElseThrow(), List.of(), List.of(placed), index + 1));
    }

    @Test
    void eligibilityAndDrainSurviveReRegistration() throws Exception {
        apply(1, new Command.NodeRegister(node("n", "ready"), List.of()));
        apply(2, new Command.NodeEligibilityUpdate("n", Node.INELIGIBLE, List.of()));
        apply(3, new Command.NodeRegister(node("n", "ready"), List.of()));
        assertEquals(Node.INELIGIBLE, store.snapshot().get(NomadTables.NODES, "n").orElseThrow()
                .schedulingEligibility());
    }

    @Test
    void clientUpdatesChangeOnlyClientFieldsAndRecountTheSummary() throws Exception {
        apply(1, new Command.NodeRegister(node("n", "ready"), List.of()));
        var job = FsmTest.job("web", 50);
        apply(2, new Command.JobRegister(job, io.caravan.api.model.Evaluation.forJob("e", job, "job-register", 0),
                false, 0));
        Allocation placed = io.caravan.api.json.NomadJson.mapper().readValue("""
                {"ID": "a1", "Namespace": "default", "EvalID": "e", "Name": "web.web[0]", "NodeID": "n",
                 "JobID": "web", "TaskGroup": "web", "DesiredStatus": "run", "ClientStatus": "pending"}
                """, Allocation.class);
        apply(3, new Command.PlanApply("e", store.snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow(),
                List.of(), List.of(placed), 3));
        var summary = store.snapshot().get(NomadTables.JOB_SUMMARIES, "default\0web").orElseThrow();
        assertEquals(1, summary.summary().get("web").starting());
        assertEquals("running", store.snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow().status());

        Allocation update = placed.toBuilder().clientStatus("running").desiredStatus("stop").build();
        apply(4, new Command.AllocClientUpdate(List.of(new Command.NodeAllocs("n", List.of(update))), 4, List.of()));
        Allocation stored = store.snapshot().get(NomadTables.ALLOCS, "a1").orElseThrow();
        assertEquals("running", stored.clientStatus());
        assertEquals("run", stored.desiredStatus(), "the client cannot change what the servers decide");
        assertEquals(3, stored.allocModifyIndex(), "the client is not woken by its own update");
        assertEquals(1, store.snapshot().get(NomadTables.JOB_SUMMARIES, "default\0web").orElseThrow().summary()
                .get("web").running());
        assertEquals(Map.of(), stored.taskStates());
    }

    @Test
    void theNodeSecretIsReplicatedAndSnapshottedButNeverShown() throws Exception {
        apply(1, new Command.NodeRegister(node("n", "ready"), List.of()));
        Node stored = store.snapshot().get(NomadTables.NODES, "n").orElseThrow();
        assertEquals("s", stored.secretId(), "the log entry carried the secret");
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        store.snapshot().writeTo(out, NomadTables.codec());
        StateStore restored = StateStore.create(NomadTables.ALL, timers, timers);
        restored.restore(new java.io.ByteArrayInputStream(out.toByteArray()), NomadTables.codec());
        assertEquals("s", restored.snapshot().get(NomadTables.NODES, "n").orElseThrow().secretId());
        org.junit.jupiter.api.Assertions.assertFalse(io.caravan.api.json.NomadJson.mapper()
                .writeValueAsString(stored).contains("SecretID"), "the API never shows it");
    }
}
