package io.caravan.api.cron;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CronExpressionTest {

    /** expression, zone, after (ISO with offset), expected next (ISO with offset, or null for none). */
    static Stream<Arguments> nextTimes() {
        return Stream.of(
                // five fields: minute precision, seconds 0
                Arguments.of("*/15 * * * *", "UTC", "2026-03-01T10:07:30Z", "2026-03-01T10:15:00Z"),
                Arguments.of("0 * * * *", "UTC", "2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z"),
                Arguments.of("5/20 * * * *", "UTC", "2026-03-01T10:46:00Z", "2026-03-01T11:05:00Z"),
                Arguments.of("10-20/5 3 * * *", "UTC", "2026-03-01T03:16:00Z", "2026-03-01T03:20:00Z"),
                Arguments.of("10-20/5 3 * * *", "UTC", "2026-03-01T03:20:00Z", "2026-03-02T03:10:00Z"),
                // seven fields: seconds first, year last
                Arguments.of("*/5 * * * * * *", "UTC", "2026-03-01T10:00:03Z", "2026-03-01T10:00:05Z"),
                Arguments.of("30 0 12 * * * 2027", "UTC", "2026-03-01T10:00:00Z", "2027-01-01T12:00:30Z"),
                // six fields: the last is a year, not seconds
                Arguments.of("0 12 * * * 2028", "UTC", "2026-03-01T10:00:00Z", "2028-01-01T12:00:00Z"),
                // names
                Arguments.of("0 9 * jun-aug mon-fri", "UTC", "2026-05-31T00:00:00Z", "2026-06-01T09:00:00Z"),
                Arguments.of("0 9 * * SAT,sun", "UTC", "2026-06-01T00:00:00Z", "2026-06-06T09:00:00Z"),
                Arguments.of("0 0 * * 7", "UTC", "2026-06-01T00:00:00Z", "2026-06-07T00:00:00Z"),
                // last day of the month, leap years
                Arguments.of("0 0 L * *", "UTC", "2028-02-01T00:00:00Z", "2028-02-29T00:00:00Z"),
                Arguments.of("0 0 L * *", "UTC", "2027-02-01T00:00:00Z", "2027-02-28T00:00:00Z"),
                Arguments.of("0 0 L * *", "UTC", "2026-04-30T00:00:00Z", "2026-05-31T00:00:00Z"),
                // nearest weekday: the 1st is a Saturday → Monday the 3rd (never the previous month)
                Arguments.of("0 0 1W * *", "UTC", "2026-07-31T00:00:00Z", "2026-08-03T00:00:00Z"),
                // 15W on a Sunday → Monday 16th; LW: last weekday (May 31 2026 is a Sunday → Friday 29th)
                Arguments.of("0 0 15W * *", "UTC", "2026-11-01T00:00:00Z", "2026-11-16T00:00:00Z"),
                Arguments.of("0 0 LW * *", "UTC", "2026-05-01T00:00:00Z", "2026-05-29T00:00:00Z"),
                // last Friday, third Friday
                Arguments.of("0 0 * * 5L", "UTC", "2026-03-01T00:00:00Z", "2026-03-27T00:00:00Z"),
                Arguments.of("0 0 * * FRI#3", "UTC", "2026-03-01T00:00:00Z", "2026-03-20T00:00:00Z"),
                // both days restricted: either matches
                Arguments.of("0 0 13 * 5", "UTC", "2026-03-01T00:00:00Z", "2026-03-06T00:00:00Z"),
                // the 31st skips months without one
                Arguments.of("0 0 31 * *", "UTC", "2026-04-01T00:00:00Z", "2026-05-31T00:00:00Z"),
                // impossible dates: never
                Arguments.of("0 0 30 2 *", "UTC", "2026-01-01T00:00:00Z", null),
                Arguments.of("0 0 0 1 1 * 2020", "UTC", "2026-01-01T00:00:00Z", null),
                // macros
                Arguments.of("@hourly", "UTC", "2026-03-01T10:00:00Z", "2026-03-01T11:00:00Z"),
                Arguments.of("@daily", "UTC", "2026-03-01T10:00:00Z", "2026-03-02T00:00:00Z"),
                Arguments.of("@weekly", "UTC", "2026-03-02T10:00:00Z", "2026-03-08T00:00:00Z"),
                Arguments.of("@monthly", "UTC", "2026-03-02T10:00:00Z", "2026-04-01T00:00:00Z"),
                Arguments.of("@yearly", "UTC", "2026-03-02T10:00:00Z", "2027-01-01T00:00:00Z"),
                // time zones: 09:00 in Tokyo is 00:00 UTC
                Arguments.of("0 9 * * *", "Asia/Tokyo", "2026-03-01T01:00:00Z", "2026-03-02T00:00:00Z"),
                // New York springs forward on 2026-03-08 at 02:00: 02:30 does not exist, it runs at 03:30 EDT
                Arguments.of("30 2 * * *", "America/New_York", "2026-03-07T08:00:00Z", "2026-03-08T07:30:00Z"),
                Arguments.of("30 2 * * *", "America/New_York", "2026-03-08T07:30:00Z", "2026-03-09T06:30:00Z"),
                // New York falls back on 2026-11-01: 01:30 happens twice, it runs once, at the first (EDT)
                Arguments.of("30 1 * * *", "America/New_York", "2026-11-01T04:00:00Z", "2026-11-01T05:30:00Z"),
                Arguments.of("30 1 * * *", "America/New_York", "2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"),
                // hourly across the spring gap: 01:00 EST then 03:00 EDT, one real hour apart
                Arguments.of("0 * * * *", "America/New_York", "2026-03-08T06:00:00Z", "2026-03-08T07:00:00Z"));
    }

    @ParameterizedTest(name = "{0} in {1} after {2}")
    @MethodSource("nextTimes")
    void next(String expression, String zone, String after, String expected) {
        Instant next = CronExpression.parse(expression).next(OffsetDateTime.parse(after).toInstant(),
                ZoneId.of(zone));
        if (expected == null) {
            assertNull(next);
        } else {
            assertEquals(OffsetDateTime.parse(expected).toInstant(), next);
        }
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                Arguments.of("", "empty"),
                Arguments.of("* * * *", "5 to 7 fields"),
                Arguments.of("* * * * * * * *", "5 to 7 fields"),
                Arguments.of("60 * * * *", "minute"),
                Arguments.of("* 24 * * *", "hour"),
                Arguments.of("* * 0 * *", "day-of-month"),
                Arguments.of("* * 32 * *", "day-of-month"),
                Arguments.of("* * * 13 *", "month"),
                Arguments.of("* * * foo *", "month"),
                Arguments.of("* * * * 8", "day-of-week"),
                Arguments.of("* * * * 5#6", "day-of-week"),
                Arguments.of("*/0 * * * *", "step 0"),
                Arguments.of("5-1 * * * *", "backwards"),
                Arguments.of("1,,2 * * * *", "empty list element"),
                Arguments.of("* * * * * * 1969", "year"),
                Arguments.of("@reboot", "unknown macro"));
    }

    @ParameterizedTest(name = "\"{0}\": {1}")
    @MethodSource("invalid")
    void rejects(String expression, String reason) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CronExpression.parse(expression));
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }
}
