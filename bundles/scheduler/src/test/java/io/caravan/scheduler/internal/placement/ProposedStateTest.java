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
import io.caravan.scheduler.testing.TestJobs;
import io.caravan.scheduler.testing.TestNodes;

class ProposedStateTest {
    private final Job job = TestJobs.job("app").group(TestJobs.group("web", 3).build()).build();
    private final InMemoryState state = new InMemoryState()
            .node(TestNodes.node("n1").meta("rack", "r1").build())
            .node(TestNodes.node("n2").meta("rack", "r2").build());

    private static List<String> ids(NodeUsage usage) {
        return usage.allocs().stream().map(Allocation::id).sorted().collect(Collectors.toList());
    }

    @Test
    void stopsPlacementsAndUpdatesShowInTheNodesUsage() {
        state.job(job).alloc(running(job, "a0", 0, "n1")).alloc(running(job, "a1", 1, "n1"));
        ProposedState p = new ProposedState(state, job.namespace(), job.id());
        assertEquals(List.of("a0", "a1"), ids(p.usage("n1")));
        assertEquals(1000, p.usage("n1").cpu());

        Allocation stopped = AllocBuilder.from(state.allocById("a0")).desired(Allocation.DESIRED_STOP, "x").build();
        int before = p.nodeChanges();
        p.stop(stopped);
        assertEquals(List.of("a1"), ids(p.usage("n1")));
        assertEquals(before + 1, p.nodeChanges(), "the stop is logged as a change of n1");
        assertEquals(p.indexOf("n1"), p.changedNode(before));

        p.place(running(job, "new", 2, "n1").withIndexes(0, 0, 0));
        assertEquals(List.of("a1", "new"), ids(p.usage("n1")));

        p.undoStop(stopped);
        assertEquals(List.of("a0", "a1", "new"), ids(p.usage("n1")));
        assertEquals(Map.of("n1", 1), Map.of("n1", p.nodeAllocation().get("n1").size()));
        assertEquals(null, p.nodeUpdate().get("n1"));
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
