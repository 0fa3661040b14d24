package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.state.StateSnapshot;

/**
 * The evaluations a change to a node calls for (Nomad's {@code createNodeEvals}): one for each job with an allocation
 * on the node, so lost or drained work is replaced, and one for each system job, so it runs on the node.
 */
final class NodeEvals {
    private NodeEvals() {
    }

    static List<Evaluation> forNode(StateSnapshot state, String nodeId, long nodeModifyIndex, String triggeredBy,
                                    long nowNanos) {
        Map<String, Job> jobs = new LinkedHashMap<>();
        state.byIndex(NomadTables.ALLOCS, "node", nodeId).filter(a -> !a.terminal()).map(Allocation::job)
                .filter(j -> j != null)
                .forEach(j -> jobs.putIfAbsent(NomadTables.key(j.namespace(), j.id()), j));
        state.all(NomadTables.JOBS).filter(j -> !Boolean.TRUE.equals(j.stop()))
                .filter(j -> Job.TYPE_SYSTEM.equals(j.type()) || Job.TYPE_SYSBATCH.equals(j.type()))
                .forEach(j -> jobs.putIfAbsent(NomadTables.key(j.namespace(), j.id()), j));
        List<Evaluation> evals = new ArrayList<>();
        for (Job job : jobs.values()) {
            Evaluation e = Evaluation.forJob(UUID.randomUUID().toString(), job, triggeredBy, nowNanos);
            evals.add(e.toBuilder().nodeId(nodeId).nodeModifyIndex(nodeModifyIndex)
                    .jobModifyIndex(job.jobModifyIndex() == null ? 0 : job.jobModifyIndex()).build());
        }
        return evals;
    }
}
