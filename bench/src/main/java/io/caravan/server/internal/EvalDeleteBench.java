package io.caravan.server.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.consensus.Applied;
import io.caravan.consensus.Replicator;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.AsyncHandler;
import io.caravan.http.QueryOptions;
import io.caravan.http.RouteTable;

/**
 * Seed 001's figure (Nomad: a million evaluations deleted in under 4 minutes, the FSM blocked 20–30 ms at a time):
 * {@code n} pending evaluations over {@code jobs} jobs, the broker paused, then {@code DELETE /v1/evaluations} with a
 * filter through the real endpoint ({@link EvalRoutes}), every entry encoded and applied through {@link ServerState} as
 * Raft's apply thread does (no Raft log or fsync: the FSM's share, which is what blocks readers and writers). Prints
 * the total time, the throughput, each apply's wall and CPU time (median, p99, max) and the largest entry.
 *
 * <p>In this package (a split package on the class path, bench only) because the FSM is the server bundle's internal.
 *
 * <pre>java -Xmx6g -cp "$CP" io.caravan.server.internal.EvalDeleteBench [n] [jobs] [perPage]</pre>
 */
public final class EvalDeleteBench {
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int jobs = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        int perPage = args.length > 2 ? Integer.parseInt(args[2]) : EvalDeletes.DEFAULT_PER_PAGE;
        ServerState state = new ServerState();
        AtomicLong index = new AtomicLong();
        List<long[]> applies = Collections.synchronizedList(new ArrayList<>());   // bytes, wall ns, cpu ns
        RaftWrites raft = new RaftWrites();
        raft.bindReplicator(new Replicator() {
            public CompletionStage<Applied> submit(byte[] entry) {
                long i = index.incrementAndGet();
                long wall = System.nanoTime();
                long cpu = CPU.getCurrentThreadCpuTime();
                byte[] result = state.apply(i, 1_000 + i, entry);
                if (CommandCodec.decode(entry) instanceof Command.EvalDelete) {
                    applies.add(new long[] {entry.length, System.nanoTime() - wall,
                            CPU.getCurrentThreadCpuTime() - cpu});
                }
                return CompletableFuture.completedFuture(new Applied(i, result));
            }
            public boolean isLeader() { return true; }
            public Optional<String> leaderAddress() { return Optional.empty(); }
            public long lastAppliedIndex() { return index.get(); }
            public List<String> peers() { return List.of(); }
        });

        long loading = System.nanoTime();
        List<Job> registered = new ArrayList<>();
        for (int j = 0; j < jobs; j++) {
            Job job = Jobs.canonical(NomadJson.mapper().readTree("""
                    {"Job": {"ID": "job-%d", "TaskGroups": [{"Name": "web",
                      "Tasks": [{"Name": "server", "Driver": "raw_exec", "Config": {"command": "/bin/sleep"}}]}]}}
                    """.formatted(j)), "global").withSubmitTime(1000);
            raft.submitAndWait(new Command.JobRegister(job, null, false, 0));
            registered.add(job);
        }
        List<Evaluation> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(Evaluation.forJob(UUID.randomUUID().toString(), registered.get(i % jobs),
                    Evaluation.TRIGGER_JOB_REGISTER, 1));
            if (batch.size() == 5_000 || i == n - 1) {
                raft.submitAndWait(new Command.EvalUpsert(batch));
                batch = new ArrayList<>();
            }
        }
        raft.submitAndWait(new Command.SchedulerConfigUpdate(new SchedulerConfig(null, null, false, false, true, 0,
                0), false, 0));
        System.out.printf("loaded %,d evaluations over %,d jobs in %.1f s; deleting with per page %,d%n", n, jobs,
                (System.nanoTime() - loading) / 1e9, perPage);

        List<AsyncHandler> delete = new ArrayList<>();
        new EvalRoutes(state, raft).register(new RouteTable() {
            public RouteTable routeAsync(String method, String pattern, ApiEndpoint endpoint, AsyncHandler handler) {
                if (method.equals("DELETE")) {
                    delete.add(handler);
                }
                return this;
            }
        });
        JsonNode body = NomadJson.mapper().readTree("{\"Filter\": \"Status == \\\"pending\\\"\", \"PerPage\": "
                + perPage + "}");
        long started = System.nanoTime();
        JsonNode answer = NomadJson.mapper().valueToTree(delete.get(0).handle(new Delete(body)).toCompletableFuture()
                .get().body());
        double seconds = (System.nanoTime() - started) / 1e9;
        int deleted = answer.path("Count").asInt();
        List<Long> wall = applies.stream().map(a -> a[1]).sorted().toList();
        List<Long> cpu = applies.stream().map(a -> a[2]).sorted().toList();
        System.out.printf("deleted %,d in %.1f s (%,.0f evals/s), %,d entries of at most %,d bytes; left %,d%n",
                deleted, seconds, deleted / seconds, applies.size(),
                applies.stream().mapToLong(a -> a[0]).max().orElse(0), state.store().snapshot().count(NomadTables.EVALS));
        System.out.printf("apply wall ms: median %.1f, p99 %.1f, max %.1f; apply CPU ms: median %.1f, p99 %.1f, "
                + "max %.1f%n", ms(wall, 50), ms(wall, 99), ms(wall, 100), ms(cpu, 50), ms(cpu, 99), ms(cpu, 100));
        System.out.printf("machine: %d cores, %s %s, max heap %,d MiB%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.vm.name"), System.getProperty("java.version"),
                Runtime.getRuntime().maxMemory() >> 20);
        state.deactivate();
    }

    private static double ms(List<Long> sorted, int percentile) {
        int at = Math.min(sorted.size() - 1, sorted.size() * percentile / 100);
        return sorted.get(at) / 1e6;
    }

    /** {@code DELETE /v1/evaluations} as the management token sends it. */
    private record Delete(JsonNode json) implements ApiRequest {
        public String method() { return "DELETE"; }
        public String path() { return "/v1/evaluations"; }
        public String pathParam(String name) { throw new IllegalArgumentException(name); }
        public Optional<String> query(String name) { return Optional.empty(); }
        public List<String> queryAll(String name) { return List.of(); }
        public Optional<String> header(String name) { return Optional.empty(); }
        public Optional<String> token() { return Optional.empty(); }
        public QueryOptions options() {
            return new QueryOptions("global", "default", 0, Duration.ZERO, false, "", "", 0, "", false);
        }
        public <T> T body(Class<T> type) {
            try {
                return NomadJson.mapper().treeToValue(json, type);
            } catch (Exception e) {
                throw new IllegalArgumentException(e);
            }
        }
        public String remoteAddress() { return "127.0.0.1"; }
    }
}
