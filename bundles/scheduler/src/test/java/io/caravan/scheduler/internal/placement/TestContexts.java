package io.caravan.scheduler.internal.placement;

import io.caravan.api.model.Job;
import io.caravan.scheduler.SchedulerConfiguration;
import io.caravan.scheduler.testing.InMemoryState;

/** An evaluation context over an in-memory state, for check and scorer tests. */
public final class TestContexts {
    private TestContexts() {
    }

    public static EvalContext context(InMemoryState state, Job job) {
        return context(state, job, SchedulerConfiguration.DEFAULT);
    }

    public static EvalContext context(InMemoryState state, Job job, SchedulerConfiguration config) {
        return new EvalContext(new ProposedState(state, job.namespace(), job.id()), config, 42);
    }

    /** A node scored for a group: fitted and ready for scorers. */
    public static RankedNode ranked(EvalContext ctx, PlacementRequest request, io.caravan.api.model.Node node) {
        RankedNode rn = new RankedNode(node, ctx.proposed().indexOf(node.id()), ctx.proposed().usage(node.id()));
        String failure = new ResourceFit(request.group(), false).fit(rn, ctx);
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
        return rn;
    }
}
