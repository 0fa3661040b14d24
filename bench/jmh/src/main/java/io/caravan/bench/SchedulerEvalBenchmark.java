package io.caravan.bench;

import java.time.Clock;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.scheduler.Schedulers;

/**
 * One service evaluation → plan, as {@link SchedulerBench} times it (same cluster, job and accepting planner), under
 * JMH: the cluster is built once per trial and every invocation schedules the same evaluation on it from scratch
 * (the scheduler keeps nothing between evaluations). The target cell is 5,000 nodes × 1,200 allocations with
 * {@code spread} on the rack: ≤ 50 ms.
 *
 * <pre>
 *   java -jar bench/jmh/target/benchmarks.jar SchedulerEvalBenchmark
 *   java -jar bench/jmh/target/benchmarks.jar SchedulerEvalBenchmark -p spread=true -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SchedulerEvalBenchmark {
    @Param("5000")
    public int nodes;
    @Param("25")
    public int racks;
    @Param("1200")
    public int allocs;
    @Param({"false", "true"})
    public boolean spread;

    private SchedulerBench.BenchState state;
    private Evaluation eval;

    @Setup(Level.Trial)
    public void cluster() {
        state = new SchedulerBench.BenchState(SchedulerBench.cluster(nodes, racks), SchedulerBench.job(allocs, spread));
        eval = Evaluation.forJob("9a3c53ab-0000-4000-8000-000000000001", state.job, Evaluation.TRIGGER_JOB_REGISTER, 0);
    }

    /** Returns the placements made, which must be {@link #allocs} (checked by the harness's own test runs). */
    @Benchmark
    public int evaluate() throws Exception {
        SchedulerBench.BenchPlanner planner = new SchedulerBench.BenchPlanner();
        Schedulers.create(Job.TYPE_SERVICE, state, planner, Clock.systemUTC()).process(eval);
        if (planner.placed != allocs) {
            throw new IllegalStateException("placed " + planner.placed + " of " + allocs);
        }
        return planner.placed;
    }
}
