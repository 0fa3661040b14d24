package io.caravan.scheduler.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.scheduler.Plan;
import io.caravan.scheduler.PlanResult;
import io.caravan.scheduler.Planner;
import io.caravan.scheduler.SchedulerState;

/**
 * A planner that applies plans to an {@link InMemoryState} (like Nomad's test Harness) and records everything.
 * Nodes listed in {@link #rejectNodesOnce} are refused the first time a plan touches them.
 */
public final class RecordingPlanner implements Planner {
    private final InMemoryState state;
    public final List<Plan> plans = new ArrayList<>();
    public final List<PlanResult> results = new ArrayList<>();
    public final List<Evaluation> created = new ArrayList<>();
    public final List<Evaluation> updated = new ArrayList<>();
    public final Set<String> rejectNodesOnce = new HashSet<>();
    /** Refuses every plan (the applier always finds conflicts). */
    public boolean rejectAll;
    public int refreshes;

    public RecordingPlanner(InMemoryState state) {
        this.state = state;
    }

    @Override
    public PlanResult submitPlan(Plan plan) {
        plans.add(plan);
        long index = state.bump();
        Map<String, List<Allocation>> updates = new HashMap<>();
        Map<String, List<Allocation>> placed = new HashMap<>();
        boolean rejected = false;
        for (Map.Entry<String, List<Allocation>> e : plan.nodeUpdate().entrySet()) {
            if (rejectAll || rejectNodesOnce.contains(e.getKey())) {
                rejected = true;
                continue;
            }
            e.getValue().forEach(state::alloc);
            updates.put(e.getKey(), e.getValue());
        }
        for (Map.Entry<String, List<Allocation>> e : plan.nodeAllocation().entrySet()) {
            if (rejectAll || rejectNodesOnce.contains(e.getKey())) {
                rejected = true;
                continue;
            }
            List<Allocation> committed = new ArrayList<>();
            for (Allocation a : e.getValue()) {
                Allocation existing = state.allocById(a.id());
                Allocation stored = existing == null ? a.withIndexes(index, index, index)
                        : a.withIndexes(existing.createIndex(), index, index);
                state.alloc(stored);
                committed.add(stored);
            }
            placed.put(e.getKey(), committed);
        }
        rejectNodesOnce.clear();
        PlanResult result = new PlanResult(updates, placed, index, rejected ? state.bump() : 0);
        results.add(result);
        return result;
    }

    @Override
    public SchedulerState refreshState(long minIndex) {
        refreshes++;
        return state;
    }

    @Override
    public void updateEval(Evaluation eval) {
        updated.add(eval);
    }

    @Override
    public void createEval(Evaluation eval) {
        created.add(eval);
    }

    public Evaluation lastUpdate() {
        return updated.get(updated.size() - 1);
    }

    public Plan lastPlan() {
        return plans.get(plans.size() - 1);
    }

    /** Every allocation the plans placed (new IDs only), in order. */
    public List<Allocation> placedAllocs() {
        List<Allocation> out = new ArrayList<>();
        for (Plan p : plans) {
            p.nodeAllocation().values().forEach(out::addAll);
        }
        return out;
    }
}
