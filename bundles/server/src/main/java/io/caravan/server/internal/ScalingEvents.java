package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.state.StateTxn;

/**
 * Nomad's scaling events: what {@code PUT /v1/job/:id/scale} recorded for each group of a job, newest first and at
 * most {@link #TRACKED} per group (Nomad's {@code JobTrackedScalingEvents}), served by {@code GET /v1/job/:id/scale}.
 * One row per job, written through Raft; purging the job removes it.
 */
final class ScalingEvents {
    static final int TRACKED = 20;

    /** Nomad's {@code ScalingEvent}: {@code Count} is null for an event that changed no count. */
    record ScalingEvent(long time, Long count, long previousCount, String message, boolean error,
                        Map<String, Object> meta, String evalId, long createIndex) {
        ScalingEvent withCreateIndex(long index) {
            return new ScalingEvent(time, count, previousCount, message, error, meta, evalId, index);
        }
    }

    /** Nomad's {@code JobScalingEvents}. */
    record JobScalingEvents(String namespace, String jobId, Map<String, List<ScalingEvent>> scalingEvents,
                            long modifyIndex) {
        JobScalingEvents {
            scalingEvents = scalingEvents == null ? Map.of() : scalingEvents;
        }
    }

    private ScalingEvents() {
    }

    static Command.Result record(Fsm.Txn txn, Command.ScalingEventRecord cmd) {
        StateTxn state = txn.state();
        long index = txn.index();
        String key = NomadTables.key(cmd.namespace(), cmd.jobId());
        if (state.get(NomadTables.JOBS, key).isEmpty()) {
            return Command.Result.rejected(index, 404, "job \"" + cmd.jobId() + "\" not found");
        }
        JobScalingEvents before = state.get(NomadTables.SCALING_EVENTS, key).orElse(null);
        Map<String, List<ScalingEvent>> groups = new LinkedHashMap<>(before == null ? Map.of()
                : before.scalingEvents());
        List<ScalingEvent> events = new ArrayList<>();
        events.add(cmd.event().withCreateIndex(index));
        events.addAll(groups.getOrDefault(cmd.group(), List.of()));
        groups.put(cmd.group(), List.copyOf(events.subList(0, Math.min(TRACKED, events.size()))));
        state.put(NomadTables.SCALING_EVENTS, new JobScalingEvents(cmd.namespace(), cmd.jobId(), groups, index));
        return Command.Result.ok(index);
    }
}
