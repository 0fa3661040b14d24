package io.caravan.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.caravan.api.model.Job;
import io.caravan.scheduler.testing.InMemoryState;
import io.caravan.scheduler.testing.RecordingPlanner;
import io.caravan.scheduler.testing.TestNodes;

class NodeClassesTest {
    private static final String BASE = NodeClasses.computedClass(TestNodes.node("n1").build());

    @Test
    void stableAndVersioned() {
        assertTrue(BASE.startsWith("v1:"));
        assertEquals(BASE, NodeClasses.computedClass(TestNodes.node("n1").build()));
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("another node, same shape", TestNodes.node("n2"), true),
                Arguments.of("unique attribute", TestNodes.node("n1").attr("unique.network.ip-address", "10.1.1.1"), true),
                Arguments.of("unique meta", TestNodes.node("n1").meta("unique.serial", "x"), true),
                Arguments.of("datacenter", TestNodes.node("n1").dc("dc2"), false),
                Arguments.of("node class", TestNodes.node("n1").nodeClass("gpu"), false),
                Arguments.of("pool", TestNodes.node("n1").pool("edge"), false),
                Arguments.of("attribute", TestNodes.node("n1").attr("kernel.name", "darwin"), false),
                Arguments.of("meta", TestNodes.node("n1").meta("rack", "r1"), false),
                Arguments.of("driver health", TestNodes.node("n1").driver("raw_exec", true, false), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void sameClass(String name, TestNodes node, boolean same) {
        String cls = NodeClasses.computedClass(node.build());
        if (same) {
            assertEquals(BASE, cls);
        } else {
            assertNotEquals(BASE, cls);
        }
    }

    @Test
    void schedulersByType() {
        InMemoryState state = new InMemoryState();
        RecordingPlanner planner = new RecordingPlanner(state);
        for (String type : new String[] {Job.TYPE_SERVICE, Job.TYPE_BATCH, Job.TYPE_SYSTEM, Job.TYPE_SYSBATCH}) {
            assertTrue(Schedulers.create(type, state, planner, Clock.systemUTC()) != null);
        }
        assertThrows(IllegalArgumentException.class, () -> Schedulers.create("_core", state, planner,
                Clock.systemUTC()));
    }
}
