package io.caravan.server.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;

/**
 * What de-duplicating writes ({@link AppliedRequests}) costs the apply path: the same entries applied through
 * {@link ServerState} (decode, FSM, state-store commit, as Raft's apply thread runs them) with and without a request
 * ID, for an empty command (the table's own cost) and for registrations of new jobs; plus the bytes per log entry, and
 * the heap and snapshot bytes of a full table. Median of {@code rounds} runs of {@code n} applies, after a warm-up run.
 *
 * <p>In this package (a split package on the class path, bench only) because the FSM is the server bundle's internal.
 *
 * <pre>java -cp "$CP" io.caravan.server.internal.AppliedRequestsBench [n] [rounds]</pre>
 */
public final class AppliedRequestsBench {
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        System.out.printf("machine: %d cores, %s %s; %,d applies per run, median of %d runs%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"), n, rounds);
        for (boolean empty : new boolean[] {true, false}) {
            List<byte[]> without = entries(n, empty, false);
            List<byte[]> with = entries(n, empty, true);
            run(without);
            run(with);   // warm-up
            double[] a = new double[rounds];
            double[] b = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                a[r] = run(without) / 1e3 / n;
                b[r] = run(with) / 1e3 / n;
            }
            System.out.printf("%-28s entry %5d -> %5d bytes; apply %6.1f -> %6.1f us (median; min %.1f -> %.1f)%n",
                    empty ? "EvalUpsert, no evals:" : "JobRegister, new jobs:", without.get(0).length,
                    with.get(0).length, median(a), median(b), min(a), min(b));
        }
        List<byte[]> rows = entries(AppliedRequests.MAX_ROWS, true, true);
        long before = usedHeapAfterGc();
        ServerState full = new ServerState();
        apply(full, rows);
        long after = usedHeapAfterGc();
        ByteArrayOutputStream snapshot = new ByteArrayOutputStream();
        full.snapshot(snapshot);
        int count = full.store().snapshot().count(AppliedRequests.TABLE);
        System.out.printf("full table: %,d rows, heap %,d bytes/row, snapshot %,d bytes/row%n", count,
                (after - before) / count, snapshot.size() / count);
        full.deactivate();
    }

    private static List<byte[]> entries(int n, boolean empty, boolean ids) throws IOException {
        List<byte[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Command command;
            if (empty) {
                command = new Command.EvalUpsert(List.of());
            } else {
                Job job = job("job-" + i);
                command = new Command.JobRegister(job, Evaluation.forJob(UUID.randomUUID().toString(), job,
                        Evaluation.TRIGGER_JOB_REGISTER, 1), false, 0);
            }
            out.add(CommandCodec.encode(ids ? UUID.randomUUID() : null, command));
        }
        return out;
    }

    private static Job job(String id) throws IOException {
        return Jobs.canonical(NomadJson.mapper().readTree("""
                {"Job": {"ID": "%s", "TaskGroups": [{"Name": "web",
                  "Tasks": [{"Name": "server", "Driver": "raw_exec", "Config": {"command": "/bin/sleep"}}]}]}}
                """.formatted(id)), "global").withSubmitTime(1000);
    }

    /** Nanoseconds to apply every entry to a fresh server state, one millisecond of leader time apart. */
    private static long run(List<byte[]> entries) {
        ServerState state = new ServerState();
        long start = System.nanoTime();
        apply(state, entries);
        long took = System.nanoTime() - start;
        state.deactivate();
        return took;
    }

    private static void apply(ServerState state, List<byte[]> entries) {
        long index = 1;
        for (byte[] entry : entries) {
            Command.Result result = CommandCodec.decodeResult(state.apply(index, 1_000_000 + index, entry));
            if (result.errorCode() != 0) {
                throw new IllegalStateException(result.error());
            }
            index++;
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static double min(double[] values) {
        return Arrays.stream(values).min().orElse(0);
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
