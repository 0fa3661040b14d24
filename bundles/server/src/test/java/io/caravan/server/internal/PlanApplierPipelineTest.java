package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.consensus.Applied;
import io.caravan.consensus.Replicator;
import io.caravan.scheduler.Plan;
import io.caravan.scheduler.PlanAnnotations;
import io.caravan.scheduler.PlanResult;
import io.caravan.state.StateSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pipelined plan applier: the next plan is verified while the previous one commits, against the state with that
 * commit assumed; it commits only after the previous one, and is verified again if the previous one failed. Raft is a
 * log the test holds: an entry applies (or fails) when the test says.
 */
class PlanApplierPipelineTest {
    /** A Raft log whose entries wait for the test while {@link #hold} is set; indexes follow the apply order. */
    private static final class HeldLog implements Replicator {
        private record Entry(byte[] command, CompletableFuture<Applied> done) {}

        private final ServerState state;
        private final AtomicLong index = new AtomicLong();
        private final LinkedBlockingQueue<Entry> held = new LinkedBlockingQueue<>();
        volatile boolean hold;

        HeldLog(ServerState state) {
            this.state = state;
        }

        public CompletionStage<Applied> submit(byte[] command) {
            if (!hold) {
                return CompletableFuture.completedFuture(apply(command));
            }
            CompletableFuture<Applied> done = new CompletableFuture<>();
            held.add(new Entry(command, done));
            return done;
        }

        private synchronized Applied apply(byte[] command) {
            long i = index.incrementAndGet();
            return new Applied(i, state.apply(i, 1000, command));
        }

        void release() throws InterruptedException {
            Entry e = next();
            e.done().complete(apply(e.command()));
        }

        void fail() throws InterruptedException {
            next().done().completeExceptionally(new IllegalStateException("leadership lost mid-commit"));
        }

        private Entry next() throws InterruptedException {
            Entry e = held.poll(10, TimeUnit.SECONDS);
            assertNotNull(e, "no entry was submitted");
            return e;
        }

        public boolean isLeader() { return true; }
        public Optional<String> leaderAddress() { return Optional.empty(); }
        public long lastAppliedIndex() { return index.get(); }
        public List<String> peers() { return List.of(); }
    }

    private final ServerState state = new ServerState();
    private final HeldLog log = new HeldLog(state);
    private RaftWrites writes;
    private PlanApplier applier;
    private Job job;

    @BeforeEach
    void setUp() throws Exception {
        writes = new RaftWrites();
        writes.bindReplicator(log);
        applier = new PlanApplier(state.store(), writes, Clock.systemUTC());
        for (String id : List.of("n1", "n2")) {
            writes.submitAndWait(new Command.NodeRegister(node(id), List.of()));
            writes.submitAndWait(new Command.NodeStatusUpdate(id, Node.STATUS_READY, 0, List.of()));
        }
        job = FsmTest.job("web", 50);
        writes.submitAndWait(new Command.JobRegister(job,
                Evaluation.forJob("eval-0", job, Evaluation.TRIGGER_JOB_REGISTER, 1000), false, 0));
        job = state.store().snapshot().get(NomadTables.JOBS, NomadTables.key("default", "web")).orElseThrow();
    }

    @AfterEach
    void tearDown() {
        applier.close();
        writes.deactivate();
        state.deactivate();
    }

    /** 1,000 MHz of CPU: one 600 MHz allocation fits, two do not. */
    private static Node node(String id) throws Exception {
        return NomadJson.mapper().readValue("""
                {"ID": "%s", "SecretID": "s", "Name": "%s", "Datacenter": "dc1", "Status": "ready",
                 "NodeResources": {"Cpu": {"CpuShares": 1000}, "Memory": {"MemoryMB": 4096},
                                   "Disk": {"DiskMB": 10000}}}
                """.formatted(id, id), Node.class);
    }

    private Allocation alloc(String id, String nodeId) throws Exception {
        return NomadJson.mapper().readValue("""
                {"ID": "%s", "Namespace": "default", "Name": "web.web[0]", "NodeID": "%s", "JobID": "web",
                 "TaskGroup": "web", "DesiredStatus": "run", "ClientStatus": "pending",
                 "AllocatedResources": {"Tasks": {"server": {"Cpu": {"CpuShares": 600},
                                                             "Memory": {"MemoryMB": 64}}}}}
                """.formatted(id, nodeId), Allocation.class).toBuilder().job(job).build();
    }

    private Plan plan(String evalId, Allocation... places) {
        Map<String, List<Allocation>> byNode = new java.util.HashMap<>();
        for (Allocation a : places) {
            byNode.computeIfAbsent(a.nodeId(), n -> new java.util.ArrayList<>()).add(a);
        }
        return new Plan(evalId, 50, job, false, 0, Map.of(), byNode, (PlanAnnotations) null);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting: " + what);
            Thread.sleep(5);
        }
    }

    private boolean stored(String allocId) {
        return state.store().snapshot().get(NomadTables.ALLOCS, allocId).isPresent();
    }

    @Test
    void verificationAssumesThePendingPlan() throws Exception {
        StateSnapshot snapshot = state.store().snapshot();
        PlanApplier.Verified pending = PlanApplier.verify(snapshot, plan("a", alloc("a1", "n1")), 1);
        assertTrue(pending.placements().containsKey("n1"));
        Plan conflicting = plan("b", alloc("b1", "n1"));
        assertEquals(Map.of("n1", List.of(alloc("b1", "n1"))),
                PlanApplier.verify(snapshot, conflicting, 1).placements(), "alone, the node takes it");
        PlanApplier.Verified b = PlanApplier.verify(snapshot, pending, conflicting, 1);
        assertTrue(b.rejected(), "with the pending plan the node is full");
        assertNull(b.command());
        // A pending stop frees its room: a plan that stops a1 and the next one placing b1 fit together.
        PlanApplier.Verified stopping = new PlanApplier.Verified(
                Map.of("n1", List.of(alloc("a1", "n1").toBuilder().desiredStatus(Allocation.DESIRED_STOP).build())),
                Map.of(), false, null);
        assertTrue(PlanApplier.verify(snapshot, stopping, conflicting, 1).placements().containsKey("n1"));
    }

    @Test
    void aPlanConflictingWithTheCommittingOneIsRejectedAndRefreshesPastIt() throws Exception {
        log.hold = true;
        CompletableFuture<PlanResult> a = applier.submit(plan("a", alloc("a1", "n1")));
        await(() -> log.held.size() == 1, "plan a's entry");
        CompletableFuture<PlanResult> b = applier.submit(plan("b", alloc("b1", "n1"), alloc("b2", "n2")));
        await(() -> applier.evaluate.count() == 2, "plan b verified while a commits");
        assertEquals(1, log.held.size(), "b does not commit before a has");
        log.release();
        PlanResult ra = a.get(10, TimeUnit.SECONDS);
        assertEquals(0, ra.refreshIndex());
        log.release(); // b's accepted part: n2 only
        PlanResult rb = b.get(10, TimeUnit.SECONDS);
        assertEquals(List.of("n2"), List.copyOf(rb.nodeAllocation().keySet()));
        assertTrue(rb.refreshIndex() >= ra.allocIndex(), "the refresh must see plan a: " + rb + " after " + ra);
        assertTrue(rb.allocIndex() > ra.allocIndex());
        assertTrue(stored("a1") && stored("b2"));
        assertTrue(!stored("b1"), "n1 was full with a1");
    }

    @Test
    void aFailedCommitIsNotAssumedByTheNextPlan() throws Exception {
        log.hold = true;
        CompletableFuture<PlanResult> a = applier.submit(plan("a", alloc("a1", "n1")));
        await(() -> log.held.size() == 1, "plan a's entry");
        CompletableFuture<PlanResult> b = applier.submit(plan("b", alloc("b1", "n1")));
        await(() -> applier.evaluate.count() == 2, "plan b verified (rejected) while a commits");
        log.fail();
        ExecutionException failed = assertThrows(ExecutionException.class, () -> a.get(10, TimeUnit.SECONDS));
        assertTrue(failed.getCause().getMessage().contains("leadership lost"), failed.getCause().toString());
        log.release(); // b, verified again without a: the node has room
        PlanResult rb = b.get(10, TimeUnit.SECONDS);
        assertEquals(0, rb.refreshIndex(), "fully committed");
        assertEquals(List.of("n1"), List.copyOf(rb.nodeAllocation().keySet()));
        assertTrue(stored("b1"));
        assertTrue(!stored("a1"));
    }

    @Test
    void plansOnDifferentNodesCommitInOrder() throws Exception {
        log.hold = true;
        CompletableFuture<PlanResult> a = applier.submit(plan("a", alloc("a1", "n1")));
        await(() -> log.held.size() == 1, "plan a's entry");
        CompletableFuture<PlanResult> b = applier.submit(plan("b", alloc("b1", "n2")));
        await(() -> applier.evaluate.count() == 2, "plan b verified while a commits");
        log.release();
        log.release();
        PlanResult ra = a.get(10, TimeUnit.SECONDS);
        PlanResult rb = b.get(10, TimeUnit.SECONDS);
        assertEquals(0, ra.refreshIndex());
        assertEquals(0, rb.refreshIndex());
        assertTrue(rb.allocIndex() == ra.allocIndex() + 1, ra + " then " + rb);
        assertTrue(stored("a1") && stored("b1"));
    }
}
