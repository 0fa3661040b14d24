package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.Evaluation;
import org.junit.jupiter.api.Test;

class BlockedEvalsTest {
    private final List<String> woken = new ArrayList<>();
    private final List<String> canceled = new ArrayList<>();
    private final BlockedEvals blocked = new BlockedEvals(e -> woken.add(e.id()),
            list -> list.forEach(e -> canceled.add(e.id())));

    private static Evaluation blockedEval(String id, String job, long index, Map<String, Boolean> classes,
                                          boolean escaped) throws Exception {
        return EvalBrokerTest.eval(id, job, 50, index).toBuilder().status(Evaluation.STATUS_BLOCKED)
                .classEligibility(classes).escapedComputedClass(escaped).snapshotIndex(index).build();
    }

    @Test
    void capacityOnAnIneligibleClassDoesNotWake() throws Exception {
        blocked.block(blockedEval("b", "web", 10, Map.of("small", false, "big", true), false));
        blocked.unblock("small", 11);
        assertEquals(List.of(), woken);
        blocked.unblock("big", 12);
        assertEquals(List.of("b"), woken);
        assertEquals(0, blocked.size());
    }

    @Test
    void unknownClassesAndEscapedEvaluationsWake() throws Exception {
        blocked.block(blockedEval("b1", "a", 10, Map.of("small", false), false));
        blocked.block(blockedEval("b2", "b", 10, Map.of("new", false), true));
        blocked.unblock("new", 11);
        assertEquals(List.of("b1", "b2"), woken);
    }

    @Test
    void aNewerBlockedEvaluationSupersedesTheOlder() throws Exception {
        blocked.block(blockedEval("old", "web", 10, Map.of(), false));
        blocked.block(blockedEval("new", "web", 12, Map.of(), false));
        assertEquals(List.of("old"), canceled);
        assertEquals(1, blocked.size());
    }

    @Test
    void capacityThatAppearedWhileTheSchedulerRanWakesAtOnce() throws Exception {
        blocked.unblock("big", 20);
        blocked.block(blockedEval("b", "web", 15, Map.of("big", true), false));
        assertEquals(List.of("b"), woken);
        assertEquals(0, blocked.size());
    }
}
