package io.caravan.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GoDurationTest {

    @ParameterizedTest
    @CsvSource({
        "0, 0",
        "10s, 10000000000",
        "5m, 300000000000",
        "1h30m, 5400000000000",
        "1.5s, 1500000000",
        "100ms, 100000000",
        "300us, 300000",
        "300µs, 300000",
        "42ns, 42",
        "-2m, -120000000000",
        "+1s, 1000000000",
    })
    void parsesGoSyntax(String text, long nanos) {
        assertEquals(Duration.ofNanos(nanos), GoDuration.parse(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "10", "s", "1x", "1.s.", "-", "ten seconds", "1h 2m"})
    void rejectsWhatGoRejects(String text) {
        assertThrows(IllegalArgumentException.class, () -> GoDuration.parse(text));
    }

    @ParameterizedTest
    @CsvSource({
        "0, 0s",
        "1500000000, 1.5s",
        "5400000000000, 1h30m0s",
        "300000000000, 5m0s",
        "200000000, 200ms",
        "1500, 1.5µs",
        "7, 7ns",
        "-61000000000, -1m1s",
    })
    void formatsLikeGo(long nanos, String text) {
        assertEquals(text, GoDuration.format(Duration.ofNanos(nanos)));
        assertEquals(Duration.ofNanos(nanos), GoDuration.parse(text));
    }
}
