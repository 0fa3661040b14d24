package io.caravan.scheduler.internal.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.caravan.api.model.Node;
import io.caravan.scheduler.testing.TestNodes;

class NodeTargetTest {
    private static final Node NODE = TestNodes.node("n1").dc("dc9").nodeClass("gpu").pool("edge")
            .meta("rack", "r7").meta("unique.serial", "s1").build();

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("literal", "literal", false),
                Arguments.of("${attr.kernel.name}", "linux", false),
                Arguments.of("${attr.missing}", null, false),
                Arguments.of("${attr.unique.hostname}", "n1.local", true),
                Arguments.of("${meta.rack}", "r7", false),
                Arguments.of("${meta.unique.serial}", "s1", true),
                Arguments.of("${node.unique.id}", "n1", true),
                Arguments.of("${node.unique.name}", "n1", true),
                Arguments.of("${node.datacenter}", "dc9", false),
                Arguments.of("${node.class}", "gpu", false),
                Arguments.of("${node.pool}", "edge", false),
                Arguments.of("${node.bogus}", null, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void resolves(String target, String value, boolean escapes) {
        NodeTarget t = NodeTarget.parse(target);
        assertEquals(value, t.resolve(NODE));
        assertEquals(escapes, t.escapesClass());
    }
}
