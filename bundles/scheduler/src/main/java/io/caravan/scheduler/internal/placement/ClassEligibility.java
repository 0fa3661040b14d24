package io.caravan.scheduler.internal.placement;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Feasibility verdicts per computed node class for one evaluation (Nomad's {@code EvalEligibility}): at job
 * level and per task group, plus whether any constraint escaped class caching. A blocked eval carries the result,
 * so that only capacity changes in relevant classes unblock it.
 */
public final class ClassEligibility {
    private final Map<String, Boolean> job = new LinkedHashMap<>();
    private final Map<String, Map<String, Boolean>> groups = new LinkedHashMap<>();
    private boolean jobEscaped;
    private final Map<String, Boolean> groupEscaped = new HashMap<>();

    Boolean jobVerdict(String nodeClass) {
        return job.get(nodeClass);
    }

    void setJob(String nodeClass, boolean eligible) {
        job.put(nodeClass, eligible);
    }

    Boolean groupVerdict(String group, String nodeClass) {
        Map<String, Boolean> m = groups.get(group);
        return m == null ? null : m.get(nodeClass);
    }

    void setGroup(String group, String nodeClass, boolean eligible) {
        groups.computeIfAbsent(group, g -> new LinkedHashMap<>()).put(nodeClass, eligible);
    }

    void markEscaped(String group, boolean jobLevel, boolean groupLevel) {
        jobEscaped |= jobLevel;
        if (groupLevel) {
            groupEscaped.put(group, true);
        }
    }

    public boolean escaped() {
        return jobEscaped || !groupEscaped.isEmpty();
    }

    /** Classes seen eligible (for the job and any group) or ineligible, as Nomad's {@code GetClasses}. */
    public Map<String, Boolean> classes() {
        Map<String, Boolean> out = new LinkedHashMap<>(job);
        for (Map<String, Boolean> perGroup : groups.values()) {
            perGroup.forEach((cls, eligible) -> {
                if (eligible) {
                    out.put(cls, true);
                } else {
                    out.putIfAbsent(cls, false);
                }
            });
        }
        return out;
    }
}
