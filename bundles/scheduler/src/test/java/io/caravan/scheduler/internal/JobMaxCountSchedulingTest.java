package io.caravan.scheduler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.scheduler.testing.Harness;
import io.caravan.scheduler.testing.TestJobs;
import io.caravan.scheduler.testing.TestNodes;
import org.junit.jupiter.api.Test;

/**
 * A large job is placed in bounded evaluations: each places at most {@link GenericScheduler#MAX_PLACEMENTS_PER_EVAL}
 * and leaves a follow-up evaluation for the rest, so no evaluation holds a worker, or its plan a Raft entry, for the
 * whole job. Prints the slowest evaluation and the peak heap; with {@code COUNT} set to the default
 * {@code job_max_count} (50000) it measures the figures README "Limits" quotes (too slow for every build).
 */
class JobMaxCountSchedulingTest {
    private static final int COUNT = 2 * GenericScheduler.MAX_PLACEMENTS_PER_EVAL + 7;

    @Test
    void aLargeJobIsPlacedInBoundedEvaluations() throws Exception {
        Harness h = new Harness();
        for (int i = 1; i <= 100; i++) {
            h.state.node(TestNodes.node("n" + i).resources(1_000_000, 10_000_000).disk(10_000_000).build());
        }
        Job job = TestJobs.job("big").group(TestJobs.group("web", COUNT).build()).build();
        h.state.job(job);
        Runtime rt = Runtime.getRuntime();
        Evaluation eval = Evaluation.forJob("eval-0", job, Evaluation.TRIGGER_JOB_REGISTER, Harness.NOW_NANOS);
        int evaluations = 0;
        long slowest = 0;
        long peakHeap = 0;
        while (eval != null) {
            int before = h.planner.placedAllocs().size();
            int created = h.planner.created.size();
            long started = System.nanoTime();
            h.scheduler(job.type()).process(eval);
            slowest = Math.max(slowest, System.nanoTime() - started);
            peakHeap = Math.max(peakHeap, rt.totalMemory() - rt.freeMemory());
            evaluations++;
            int placedNow = h.planner.placedAllocs().size() - before;
            assertTrue(placedNow <= GenericScheduler.MAX_PLACEMENTS_PER_EVAL, "placed " + placedNow);
            List<Evaluation> followUps = h.planner.created.subList(created, h.planner.created.size());
            eval = followUps.isEmpty() ? null : followUps.get(followUps.size() - 1);
            if (eval != null) {
                assertEquals(GenericScheduler.FOLLOW_UP_REMAINING, eval.statusDescription());
                assertEquals(Evaluation.STATUS_PENDING, eval.status());
            }
            assertTrue(evaluations <= 20, "runaway follow-ups");
        }
        assertEquals(COUNT, h.planner.placedAllocs().size());
        assertEquals(3, evaluations);
        assertEquals(COUNT, h.planner.placedAllocs().stream().map(Allocation::name).distinct().count());
        System.out.printf("count %d: %d evaluations, the slowest %d ms, peak heap %d MB (max heap %d MB)%n",
                COUNT, evaluations, slowest / 1_000_000, peakHeap >> 20, rt.maxMemory() >> 20);
    }

    @Test
    void aLargeJobThatDoesNotFitNeedsNoFollowUp() throws Exception {
        Harness h = new Harness();
        h.state.node(TestNodes.node("n1").build());
        Job job = TestJobs.job("big").group(TestJobs.group("web", COUNT).build()).build();
        h.state.job(job);
        long started = System.nanoTime();
        h.process(job, Evaluation.TRIGGER_JOB_REGISTER);
        long took = System.nanoTime() - started;
        System.out.printf("count %d on one small node: placed %d in %d ms%n", COUNT,
                h.planner.placedAllocs().size(), took / 1_000_000);
        assertEquals(8, h.planner.placedAllocs().size(), "4000 MHz / 500 MHz per allocation");
        // The rest failed (coalesced) and waits in a blocked evaluation, not in follow-ups of its own.
        assertEquals(List.of(Evaluation.STATUS_BLOCKED),
                h.planner.created.stream().map(Evaluation::status).toList());
    }
}
