package io.caravan.scheduler.internal.placement;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Feasibility verdicts per computed node class for one evaluation (Nomad's {@code EvalEligibility}): at job
 * level and per task group, plus whether any constraint escaped class caching. A blocked eval carries the result,
 * so that only capacity changes in relevant classes unblock it. Classes are numbered by the {@link EvalContext}
 * (verdicts sit in arrays: this is consulted for every node of every placement).
 */
public final class ClassEligibility {
    private static final byte UNKNOWN = 0;
    private static final byte ELIGIBLE = 1;
    private static final byte INELIGIBLE = 2;

    private final List<String> classNames;
    private byte[] job = new byte[16];
    private final Map<String, byte[]> groups = new LinkedHashMap<>();
    private boolean jobEscaped;
    private final Map<String, Boolean> groupEscaped = new HashMap<>();

    /** @param classNames class ID → name, filled by the context as it meets classes */
    ClassEligibility(List<String> classNames) {
        this.classNames = classNames;
    }

    Boolean jobVerdict(int classId) {
        return decode(classId < job.length ? job[classId] : UNKNOWN);
    }

    void setJob(int classId, boolean eligible) {
        job = ensure(job, classId);
        job[classId] = eligible ? ELIGIBLE : INELIGIBLE;
    }

    /** The group's verdict array, for {@link #groupVerdict} and {@link #setGroup}. */
    byte[] group(String group) {
        return groups.computeIfAbsent(group, g -> new byte[16]);
    }

    Boolean groupVerdict(String group, int classId) {
        byte[] g = groups.get(group);
        return g == null || classId >= g.length ? null : decode(g[classId]);
    }

    void setGroup(String group, int classId, boolean eligible) {
        byte[] g = ensure(group(group), classId);
        groups.put(group, g);
        g[classId] = eligible ? ELIGIBLE : INELIGIBLE;
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
        for (int id = 0; id < job.length; id++) {
            if (job[id] != UNKNOWN) {
                out.put(classNames.get(id), job[id] == ELIGIBLE);
            }
        }
        for (byte[] perGroup : groups.values()) {
            for (int id = 0; id < perGroup.length; id++) {
                if (perGroup[id] == ELIGIBLE) {
                    out.put(classNames.get(id), true);
                } else if (perGroup[id] == INELIGIBLE) {
                    out.putIfAbsent(classNames.get(id), false);
                }
            }
        }
        return out;
    }

    private static Boolean decode(byte b) {
        return b == UNKNOWN ? null : b == ELIGIBLE;
    }

    private static byte[] ensure(byte[] a, int index) {
        return index < a.length ? a : Arrays.copyOf(a, Math.max(index + 1, a.length * 2));
    }
}
