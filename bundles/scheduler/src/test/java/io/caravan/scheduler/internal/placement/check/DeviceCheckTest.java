package io.caravan.scheduler.internal.placement.check;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DeviceCheckTest {
    private static final List<Map<String, Object>> GPUS = List.of(Map.of("Vendor", "nvidia", "Type", "gpu",
            "Name", "1080ti", "Instances", List.of(Map.of("ID", "a", "Healthy", true),
                    Map.of("ID", "b", "Healthy", true), Map.of("ID", "c", "Healthy", false))));

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("gpu", 2L),
                Arguments.of("nvidia/gpu", 2L),
                Arguments.of("nvidia/gpu/1080ti", 2L),
                Arguments.of("nvidia/gpu/a100", 0L),
                Arguments.of("amd/gpu", 0L),
                Arguments.of("fpga", 0L));
    }

    @ParameterizedTest(name = "{0} → {1} healthy")
    @MethodSource("rows")
    void healthyInstancesOfMatchingGroups(String wanted, long expected) {
        assertEquals(expected, DeviceCheck.bestHealthy(GPUS, wanted));
    }
}
