package io.caravan.scheduler.internal.placement;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Feasibility verdicts per computed node class for one evaluation (Nomad's {@code EvalEligibility}): at job
 * level and per task group, plus whether any constraint escaped class caching. A blocked eval carries the result,
 * so that only capacity changes in relevant classes unblock it. Classes are numbered by the {@link EvalContext}:
 * verdicts sit in arrays, as they are consulted for every node of every placement.
 */
public final class ClassEligibility {
    private final List<String> classNames;
    private final Verdicts job = new Verdicts();
    private final Map<String, Verdicts> groups = new LinkedHashMap<>();
    private boolean jobEscaped;
    private final Map<String, Boolean> groupEscaped = new HashMap<>();

    /** Eligible / ineligible / unknown per class ID. */
    static final class Verdicts {
        static final byte UNKNOWN = 0;
        static final byte ELIGIBLE = 1;
        static final byte INELIGIBLE = 2;

        private byte[] byClass = new byte[16];

        /** TRUE, FALSE, or null when the class was not judged yet. */
        Boolean get(int classId) {
            byte b = state(classId);
            return b == UNKNOWN ? null : b == ELIGIBLE;
        }

        /** {@link #UNKNOWN}, {@link #ELIGIBLE} or {@link #INELIGIBLE}. */
        byte state(int classId) {
            return classId < byClass.length ? byClass[classId] : UNKNOWN;
        }

        void set(int classId, boolean eligible) {
            if (classId >= byClass.length) {
                byClass = Arrays.copyOf(byClass, Math.max(classId + 1, byClass.length * 2));
            }
            byClass[classId] = eligible ? ELIGIBLE : INELIGIBLE;
        }

        void forEachJudged(List<String> names, BiConsumer<String, Boolean> action) {
            for (int id = 0; id < byClass.length; id++) {
                if (byClass[id] != UNKNOWN) {
                    action.accept(names.get(id), byClass[id] == ELIGIBLE);
                }
            }
        }
    }

    /** @param classNames class ID → name, filled by the context as it meets classes */
    ClassEligibility(List<String> classNames) {
        this.classNames = classNames;
    }

    Verdicts job() {
        return job;
    }

    Verdicts group(String group) {
        return groups.computeIfAbsent(group, g -> new Verdicts());
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
        Map<String, Boolean> out = new LinkedHashMap<>();
        job.forEachJudged(classNames, out::put);
        for (Verdicts perGroup : groups.values()) {
            perGroup.forEachJudged(classNames, (cls, eligible) -> {
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
