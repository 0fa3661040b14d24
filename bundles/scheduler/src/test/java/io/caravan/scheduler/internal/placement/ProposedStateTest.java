package io.caravan.scheduler.internal.placement;

import static io.caravan.scheduler.testing.TestAllocs.running;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.scheduler.internal.AllocBuilder;
import io.caravan.scheduler.testing.InMemoryState;
import io.caravan.scheduler.testing.TestAllocs;
import io.caravan.scheduler.testing.TestJobs;
import io.caravan.scheduler.testing.TestNodes;

class ProposedStateTest {
    private final Job job = TestJobs.job("app").group(TestJobs.group("web", 3).build()).build();
    private final InMemoryState state = new InMemoryState()
            .node(TestNodes.node("n1").meta("rack", "r1").build())
            .node(TestNodes.node("n2").meta("rack", "r2").build());

    private static List<String> ids(ProposedState p, String node) {
        return p.allocs(node).stream().map(Allocation::id).sorted().collect(Collectors.toList());
    }

    /** The node's usage, the allocations it would run, and how many of the job's are there agree. */
    private static void assertOnN1(ProposedState p, String... ids) {
        assertEquals(List.of(ids), ids(p, "n1"));
        assertEquals(500L * ids.length, p.usage("n1").cpu(), "cpu of " + List.of(ids));
        assertEquals(256L * ids.length, p.usage("n1").memoryMb(), "memory of " + List.of(ids));
        assertEquals(ids.length, p.jobAllocsOn(p.indexOf("n1"), "web"));
        assertEquals(ids.length, p.jobAllocsOn(p.indexOf("n1"), null));
        assertEquals(0, p.jobAllocsOn(p.indexOf("n1"), "other"));
    }

    @Test
    void stopsPlacementsAndUpdatesShowInTheNodesUsage() {
        state.job(job).alloc(running(job, "a0", 0, "n1")).alloc(running(job, "a1", 1, "n1"))
                .alloc(TestAllocs.complete(job, "gone", 2, "n1"));
        ProposedState p = new ProposedState(state, job.namespace(), job.id());
        assertOnN1(p, "a0", "a1");

        Allocation stopped = AllocBuilder.from(state.allocById("a0")).desired(Allocation.DESIRED_STOP, "x").build();
        int before = p.nodeChanges();
        p.stop(stopped);
        assertOnN1(p, "a1");
        assertEquals(before + 1, p.nodeChanges(), "the stop is logged as a change of n1");
        assertEquals(p.indexOf("n1"), p.changedNode(before));
        p.stop(AllocBuilder.from(state.allocById("gone")).desired(Allocation.DESIRED_STOP, "x").build());
        assertOnN1(p, "a1"); // stopping a terminal allocation changes no count

        p.place(running(job, "new", 2, "n1").withIndexes(0, 0, 0));
        assertOnN1(p, "a1", "new");

        p.undoStop(stopped);
        assertOnN1(p, "a0", "a1", "new");
        p.update(state.allocById("a1"));
        assertOnN1(p, "a0", "a1", "new"); // an in-place update replaces, it does not add
        assertEquals(Map.of("n1", 2), Map.of("n1", p.nodeAllocation().get("n1").size()));
        assertEquals(List.of("gone"), p.nodeUpdate().get("n1").stream().map(Allocation::id).toList());
    }

    @Test
    void propertyCountsFollowThePlan() {
        state.job(job).alloc(running(job, "a0", 0, "n1"));
        ProposedState p = new ProposedState(state, job.namespace(), job.id());
        EvalContext ctx = new EvalContext(p, null, 1);
        PropertyCounts racks = ctx.propertyCounts("${meta.rack}", "web");
        assertEquals(Map.of("r1", 1), racks.current(ctx).asMap());
        p.place(running(job, "b", 1, "n2"));
        assertEquals(Map.of("r1", 1, "r2", 1), racks.current(ctx).asMap());
        p.stop(AllocBuilder.from(state.allocById("a0")).desired(Allocation.DESIRED_STOP, "x").build());
        assertEquals(Map.of("r2", 1), racks.current(ctx).asMap());
    }
}
