package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Stream;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.TaskState;
import io.caravan.scheduler.Plan;
import io.caravan.scheduler.PlanResult;
import io.caravan.scheduler.Planner;
import io.caravan.scheduler.SchedulerState;
import io.caravan.scheduler.Schedulers;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Seed 001's reconnect, simulated deterministically on the real parts: the FSM, the scheduler, the plan applier's
 * checks, the heartbeat decision and the endpoints' rules, with a clock the test moves. A node running a job with
 * {@code disconnect { lost_after = "1h" }} misses its heartbeat and comes back; its client's calls — register (R),
 * heartbeat (S), allocation update (A), reading its allocations (G) — arrive in every order, with zero, one or two
 * scheduler passes (P) anywhere among them, for each {@code replace} and {@code reconcile} choice. Whatever the
 * order: no allocation is lost, at most the one replacement is ever placed (none with {@code replace = false}),
 * exactly one allocation runs at the end — the one the reconcile choice keeps — the node ends {@code ready}, and its
 * client runs nothing the servers stopped.
 */
class ReconnectSimulationTest {
    private static final List<String> MODES = List.of("best_score", "keep_original", "keep_replacement",
            "longest_running");

    @TestFactory
    Stream<DynamicTest> everyInterleavingOfAReconnect() {
        List<DynamicTest> tests = new ArrayList<>();
        for (boolean replace : List.of(true, false)) {
            for (String mode : MODES) {
                tests.add(DynamicTest.dynamicTest("replace=" + replace + " reconcile=" + mode, () -> {
                    List<String> orders = interleavings();
                    for (String order : orders) {
                        new Simulation(replace, mode).run(order, false);
                    }
                    for (String order : orders.stream().filter(o -> o.indexOf('P') < 0).toList()) {
                        new Simulation(replace, mode).run(order, true);
                    }
                }));
            }
        }
        return tests.stream();
    }

    /** Every order of R, S, A and G with no, one or two scheduler passes anywhere among them: 24 × 21 sequences. */
    static List<String> interleavings() {
        List<String> calls = new ArrayList<>();
        permutations("", "RSAG", calls);
        List<List<Integer>> passes = new ArrayList<>();
        passes.add(List.of());
        for (int i = 0; i <= 4; i++) {
            passes.add(List.of(i));
            for (int j = i; j <= 4; j++) {
                passes.add(List.of(i, j));
            }
        }
        List<String> out = new ArrayList<>();
        for (String order : calls) {
            for (List<Integer> at : passes) {
                StringBuilder b = new StringBuilder();
                for (int i = 0; i <= 4; i++) {
                    for (int p : at) {
                        if (p == i) {
                            b.append('P');
                        }
                    }
                    if (i < 4) {
                        b.append(order.charAt(i));
                    }
                }
                out.add(b.toString());
            }
        }
        return out;
    }

    private static void permutations(String prefix, String rest, List<String> out) {
        if (rest.isEmpty()) {
            out.add(prefix);
            return;
        }
        for (int i = 0; i < rest.length(); i++) {
            permutations(prefix + rest.charAt(i), rest.substring(0, i) + rest.substring(i + 1), out);
        }
    }

    private static final class MutableClock extends Clock {
        long millis = 1_700_000_000_000L;

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public long millis() {
            return millis;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }

        long nanos() {
            return millis * 1_000_000L;
        }
    }

    /** A client's view of its node: the allocations it runs, and since when. */
    private static final class ClientView {
        final String nodeId;
        final Map<String, String> status = new LinkedHashMap<>();
        final Map<String, Instant> startedAt = new LinkedHashMap<>();

        ClientView(String nodeId) {
            this.nodeId = nodeId;
        }

        Set<String> running() {
            Set<String> ids = new HashSet<>();
            status.forEach((id, s) -> {
                if (Allocation.CLIENT_RUNNING.equals(s)) {
                    ids.add(id);
                }
            });
            return ids;
        }
    }

    private static final class Simulation {
        final boolean replace;
        final String mode;
        final MutableClock clock = new MutableClock();
        final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        final StateStore store = StateStore.create(NomadTables.ALL, timers, timers);
        final Fsm fsm = new Fsm(store);
        final Map<String, ClientView> clients = new LinkedHashMap<>();
        final Set<String> everPlaced = new HashSet<>();
        long index;
        String trace = "";

        Simulation(boolean replace, String mode) {
            this.replace = replace;
            this.mode = mode;
        }

        /**
         * @param staleMarking the scheduler pass after the disconnect works on a snapshot from before the node's
         *                     heartbeat came back (a worker that started just before it): its plan must not land
         */
        void run(String order, boolean staleMarking) throws Exception {
            try {
                setUp();
                String original = liveAllocs().get(0).id();
                assertEquals("n1", liveAllocs().get(0).nodeId());

                clock.millis += 30_000;
                trace = order + ": ";
                Command.NodeStatusUpdate missed = LeaderDuties.missedHeartbeat(store.snapshot(), "n1", clock.nanos());
                apply(missed);
                assertEquals(Node.STATUS_DISCONNECTED, node("n1").status(), trace + "a missed heartbeat disconnects");
                if (staleMarking) {
                    trace = "stale marking, " + trace;
                    StateSnapshot before = store.snapshot();
                    heartbeat("n1");
                    schedule(before);
                    assertEquals(Allocation.CLIENT_RUNNING, alloc(original).clientStatus(),
                            trace + "a node that is back is not marked unknown");
                    assertEquals(1, everPlaced.size(), trace + "nor is its allocation replaced");
                } else {
                    schedule();
                    Allocation unknown = alloc(original);
                    assertEquals(Allocation.CLIENT_UNKNOWN, unknown.clientStatus(), trace + "the original is unknown");
                    assertEquals(replace ? 2 : 1, everPlaced.size(), trace + "a replacement only with replace = true");
                }

                clock.millis += 60_000;
                for (char step : order.toCharArray()) {
                    step(step);
                    clock.millis += 1_000;
                }
                for (int round = 0; round < 6; round++) {
                    for (char step : "GASP".toCharArray()) {
                        step(step);
                    }
                    clock.millis += 1_000;
                }
                check(original);
            } finally {
                timers.shutdownNow();
            }
        }

        private void check(String original) {
            assertEquals(Node.STATUS_READY, node("n1").status(), trace + "the node ends ready");
            List<Allocation> all = store.snapshot().all(NomadTables.ALLOCS).toList();
            assertTrue(all.stream().noneMatch(a -> Allocation.CLIENT_LOST.equals(a.clientStatus())),
                    trace + "nothing is lost within the window: " + describe(all));
            assertEquals(replace && !trace.startsWith("stale") ? 2 : 1, everPlaced.size(),
                    trace + "no spurious placement: " + describe(all));
            List<Allocation> live = liveAllocs();
            assertEquals(1, live.size(), trace + "exactly one allocation runs: " + describe(all));
            Allocation kept = live.get(0);
            assertEquals(Allocation.CLIENT_RUNNING, kept.clientStatus(), trace + describe(all));
            if (!replace || trace.startsWith("stale") || mode.equals("keep_original")
                    || mode.equals("longest_running")) {
                assertEquals(original, kept.id(), trace + "the original is kept: " + describe(all));
            } else if (mode.equals("keep_replacement")) {
                assertTrue(!original.equals(kept.id()), trace + "the replacement is kept: " + describe(all));
            }
            if (kept.id().equals(original)) {
                assertTrue(!kept.needsToReconnect(), trace + "the reconnect is recorded");
            }
            for (ClientView client : clients.values()) {
                Set<String> wanted = new HashSet<>();
                live.stream().filter(a -> a.nodeId().equals(client.nodeId)).forEach(a -> wanted.add(a.id()));
                assertEquals(wanted, client.running(), trace + client.nodeId + " runs only what the servers want");
            }
        }

        private String describe(List<Allocation> all) {
            StringBuilder b = new StringBuilder();
            for (Allocation a : all) {
                b.append(a.id(), 0, 4).append('@').append(a.nodeId()).append(':').append(a.desiredStatus()).append('/')
                        .append(a.clientStatus()).append('(').append(a.desiredDescription()).append(")[")
                        .append(a.taskStates().values().stream().map(t -> String.valueOf(t.startedAt())).toList())
                        .append("] ");
            }
            return b.toString();
        }

        private void setUp() throws Exception {
            register("n1");
            heartbeat("n1");
            Job job = Jobs.canonical(NomadJson.mapper().readTree("""
                    {"Job": {"ID": "web", "TaskGroups": [{"Name": "web", "Count": 1,
                      "Disconnect": {"LostAfter": 3600000000000, "Replace": %s, "Reconcile": "%s"},
                      "Tasks": [{"Name": "server", "Driver": "raw_exec", "Config": {"command": "/bin/sleep"}}]}]}}
                    """.formatted(replace, mode)), "global").withSubmitTime(clock.nanos());
            apply(new Command.JobRegister(job, Evaluation.forJob("register", job, Evaluation.TRIGGER_JOB_REGISTER,
                    clock.nanos()), false, 0));
            schedule();
            readAllocs("n1");
            updateAllocs("n1");
            for (String n : List.of("n2", "n3")) {
                register(n);
                heartbeat(n);
            }
            schedule();
        }

        private void step(char step) throws Exception {
            switch (step) {
                case 'R' -> register("n1");
                case 'S' -> heartbeat("n1");
                case 'A' -> updateAllocs("n1");
                case 'G' -> readAllocs("n1");
                case 'P' -> schedule();
                default -> throw new IllegalArgumentException("step " + step);
            }
        }

        private void register(String nodeId) throws Exception {
            clients.computeIfAbsent(nodeId, ClientView::new);
            Node node = NomadJson.mapper().readValue("""
                    {"ID": "%s", "SecretID": "secret", "Name": "%s", "Datacenter": "dc1", "Status": "initializing",
                     "Attributes": {"driver.raw_exec": "1", "kernel.name": "linux"},
                     "NodeResources": {"Cpu": {"CpuShares": 4000}, "Memory": {"MemoryMB": 8192},
                                       "Disk": {"DiskMB": 100000}},
                     "Drivers": {"raw_exec": {"Detected": true, "Healthy": true}}}
                    """.formatted(nodeId, nodeId), Node.class);
            apply(NodeEndpoints.registration(store.snapshot(), node, clock.nanos()));
        }

        private void heartbeat(String nodeId) {
            apply(NodeEndpoints.statusUpdate(store.snapshot(), node(nodeId), Node.STATUS_READY, clock.nanos()));
        }

        /** The client sends the state of every allocation it knows; refused while the node is unresponsive. */
        private void updateAllocs(String nodeId) {
            ClientView client = clients.get(nodeId);
            if (!AllocApply.acceptsAllocUpdates(node(nodeId)) || client.status.isEmpty()) {
                return;
            }
            List<Allocation> updates = new ArrayList<>();
            client.status.forEach((id, status) -> {
                Allocation stored = alloc(id);
                TaskState task = new TaskState(Allocation.CLIENT_RUNNING.equals(status) ? TaskState.STATE_RUNNING
                        : TaskState.STATE_DEAD, false, 0, null, client.startedAt.get(id), null, List.of(), null);
                updates.add(stored.toBuilder().clientStatus(status).taskStates(Map.of("server", task)).build());
            });
            apply(new Command.AllocClientUpdate(List.of(new Command.NodeAllocs(nodeId,
                    NodeEndpoints.clientViews(updates))), clock.nanos(),
                    NodeEndpoints.allocUpdateEvals(store.snapshot(), updates, clock.nanos())));
        }

        /** The client's view after reading its allocations: new ones start, stopped ones stop. */
        private void readAllocs(String nodeId) {
            ClientView client = clients.get(nodeId);
            store.snapshot().byIndex(NomadTables.ALLOCS, "node", nodeId).forEach(a -> {
                boolean stop = Allocation.DESIRED_STOP.equals(a.desiredStatus())
                        || Allocation.DESIRED_EVICT.equals(a.desiredStatus());
                if (!client.status.containsKey(a.id()) && !stop) {
                    client.status.put(a.id(), Allocation.CLIENT_RUNNING);
                    client.startedAt.put(a.id(), clock.instant());
                } else if (stop && Allocation.CLIENT_RUNNING.equals(client.status.get(a.id()))) {
                    client.status.put(a.id(), Allocation.CLIENT_COMPLETE);
                }
            });
        }

        /** Runs every due evaluation (healthy clients follow at once), as the leader's workers would. */
        private void schedule() throws Exception {
            schedule(null);
        }

        /** The same; the first round on {@code stale} when given (plans are still checked against the latest). */
        private void schedule(StateSnapshot stale) throws Exception {
            for (int pass = 0; pass < 20; pass++) {
                StateSnapshot first = pass == 0 && stale != null ? stale : store.snapshot();
                List<Evaluation> due = first.all(NomadTables.EVALS)
                        .filter(e -> Evaluation.STATUS_PENDING.equals(e.status()))
                        .filter(e -> e.waitUntil() == null || !e.waitUntil().isAfter(clock.instant()))
                        .sorted(Comparator.comparingLong(Evaluation::createIndex)).toList();
                if (due.isEmpty()) {
                    break;
                }
                for (Evaluation eval : due) {
                    StateSnapshot snapshot = first == stale ? stale : store.snapshot();
                    Schedulers.create(eval.type(), new SnapshotSchedulerState(snapshot), planner(), clock)
                            .process(eval);
                }
                for (String healthy : List.of("n2", "n3")) {
                    if (clients.containsKey(healthy)) {
                        readAllocs(healthy);
                        updateAllocs(healthy);
                    }
                }
            }
        }

        private Planner planner() {
            return new Planner() {
                @Override
                public PlanResult submitPlan(Plan plan) {
                    StateSnapshot snapshot = store.snapshot();
                    PlanApplier.Verified v = PlanApplier.verify(snapshot, plan, clock.nanos());
                    long at = snapshot.latestIndex();
                    if (v.command() != null) {
                        v.command().placed().forEach(a -> everPlaced.add(a.id()));
                        at = apply(v.command()).index();
                    }
                    return new PlanResult(v.updates(), v.placements(), at, v.rejected() ? at : 0);
                }

                @Override
                public SchedulerState refreshState(long minIndex) {
                    return new SnapshotSchedulerState(store.snapshot());
                }

                @Override
                public void updateEval(Evaluation eval) {
                    apply(new Command.EvalUpsert(List.of(eval)));
                }

                @Override
                public void createEval(Evaluation eval) {
                    apply(new Command.EvalUpsert(List.of(eval)));
                }
            };
        }

        private Command.Result apply(Command command) {
            if (command == null) {
                return Command.Result.ok(index);
            }
            command.validate();
            // Through the codec, as the log carries it.
            return fsm.apply(++index, CommandCodec.decode(CommandCodec.encode(command)));
        }

        private Node node(String id) {
            return store.snapshot().get(NomadTables.NODES, id).orElseThrow();
        }

        private Allocation alloc(String id) {
            return store.snapshot().get(NomadTables.ALLOCS, id).orElseThrow();
        }

        private List<Allocation> liveAllocs() {
            return store.snapshot().all(NomadTables.ALLOCS).filter(a -> !a.terminal()).toList();
        }
    }

    /** The harness itself: the orders it drives are all there, each once. */
    @TestFactory
    Stream<DynamicTest> interleavingsAreComplete() {
        return Stream.of(DynamicTest.dynamicTest("24 orders × 21 placements of the passes", () -> {
            List<String> orders = interleavings();
            assertEquals(24 * 21, orders.size());
            assertEquals(orders.size(), new HashSet<>(orders).size());
        }));
    }
}
