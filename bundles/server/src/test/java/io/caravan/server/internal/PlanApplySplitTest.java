package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Job;
import io.caravan.consensus.Replicator;
import org.junit.jupiter.api.Test;

/** A plan too large for one log entry is written as consecutive parts that together are the plan, in order. */
class PlanApplySplitTest {
    private static Allocation alloc(String id) throws Exception {
        return NomadJson.mapper().readValue("""
                {"ID": "%s", "Namespace": "default", "Name": "web.web[0]", "NodeID": "n", "JobID": "web",
                 "TaskGroup": "web", "DesiredStatus": "run", "ClientStatus": "pending"}
                """.formatted(id), Allocation.class);
    }

    private static List<Allocation> allocs(String prefix, int n) throws Exception {
        List<Allocation> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(alloc(prefix + i));
        }
        return list;
    }

    @Test
    void partsKeepEveryStopAndPlacementInOrder() throws Exception {
        Job job = FsmTest.job("web", 50);
        Command.PlanApply plan = new Command.PlanApply("e", job, allocs("s", 3), allocs("p", 5), 7);
        for (int parts : new int[] {1, 2, 3, 8, 100}) {
            List<Command.PlanApply> split = plan.split(parts);
            assertEquals(Math.min(parts, 8), split.size(), "parts of " + parts);
            List<Allocation> stops = split.stream().flatMap(p -> p.stopped().stream()).toList();
            List<Allocation> placed = split.stream().flatMap(p -> p.placed().stream()).toList();
            assertEquals(plan.stopped(), stops);
            assertEquals(plan.placed(), placed);
            split.forEach(part -> {
                part.validate();
                assertEquals("e", part.evalId());
                assertEquals(7, part.timestampNanos());
                assertTrue(part.stopped().size() + part.placed().size() >= 8 / Math.min(parts, 8));
            });
        }
    }

    @Test
    void aPlanOfThousandsOfPlacementsFitsTheLogInParts() throws Exception {
        Job job = FsmTest.job("web", 50);
        List<Allocation> placed = allocs("p", 20_000);
        Command.PlanApply plan = new Command.PlanApply("e", job, List.of(), placed, 7);
        int size = CommandCodec.encode(plan).length;
        int parts = size / PlanApplier.PART_BYTES + 1;
        for (Command.PlanApply part : plan.split(parts)) {
            assertTrue(CommandCodec.encode(part).length <= Replicator.MAX_COMMAND_BYTES,
                    "a part of " + parts + " from " + size + " bytes");
        }
    }
}
