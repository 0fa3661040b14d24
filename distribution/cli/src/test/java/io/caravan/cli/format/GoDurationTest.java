package io.caravan.cli.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class GoDurationTest {

    @Test
    void parsesGoSyntax() {
        assertEquals(Duration.ofMinutes(90), GoDuration.parse("1h30m"));
        assertEquals(Duration.ofMillis(1500), GoDuration.parse("1.5s"));
        assertEquals(Duration.ofNanos(-250_000_000), GoDuration.parse("-250ms"));
        assertEquals(Duration.ofNanos(3_000), GoDuration.parse("3us"));
        assertEquals(Duration.ZERO, GoDuration.parse("0"));
    }

    @Test
    void rejectsWithGosMessages() {
        assertEquals("time: invalid duration \"soon\"",
                assertThrows(IllegalArgumentException.class, () -> GoDuration.parse("soon")).getMessage());
        assertEquals("time: missing unit in duration \"10\"",
                assertThrows(IllegalArgumentException.class, () -> GoDuration.parse("10")).getMessage());
        assertEquals("time: unknown unit \"d\" in duration \"1d\"",
                assertThrows(IllegalArgumentException.class, () -> GoDuration.parse("1d")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> GoDuration.parse(""));
    }

    @Test
    void formatsAsGoPrintsThem() {
        assertEquals("0s", GoDuration.format(Duration.ZERO));
        assertEquals("1h0m0s", GoDuration.format(Duration.ofHours(1)));
        assertEquals("1m30s", GoDuration.format(Duration.ofSeconds(90)));
        assertEquals("15s", GoDuration.format(Duration.ofSeconds(15)));
        assertEquals("1.5s", GoDuration.format(Duration.ofMillis(1500)));
        assertEquals("250ms", GoDuration.format(Duration.ofMillis(250)));
        assertEquals("1.5ms", GoDuration.format(Duration.ofNanos(1_500_000)));
        assertEquals("2µs", GoDuration.format(Duration.ofNanos(2_000)));
        assertEquals("-1s", GoDuration.format(Duration.ofSeconds(-1)));
    }

    @Test
    void mebibytesAsHumanizeIBytes() {
        assertEquals("300 MiB", Nomad.mebibytes(300));
        assertEquals("1.0 GiB", Nomad.mebibytes(1024));
        assertEquals("8.0 GiB", Nomad.mebibytes(8192));
        assertEquals("100 GiB", Nomad.mebibytes(102_400));
        assertEquals("0 B", Nomad.mebibytes(0));
    }
}
