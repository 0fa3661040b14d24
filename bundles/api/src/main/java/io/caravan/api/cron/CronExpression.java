package io.caravan.api.cron;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A cron expression with the syntax of hashicorp/cronexpr, which Nomad's {@code periodic} block uses: 5 fields
 * (minute hour day-of-month month day-of-week), 6 (those and a year) or 7 (a second first, then those and a year);
 * {@code *}, {@code ?}, ranges, lists, {@code /} steps, month and day names, {@code L}, {@code W} and {@code LW} in
 * the day of the month, {@code nL} and {@code n#k} in the day of the week (0 and 7 are Sunday), and the macros
 * {@code @yearly}, {@code @annually}, {@code @monthly}, {@code @weekly}, {@code @daily}, {@code @midnight},
 * {@code @hourly}. When both days are restricted a day matches either (as in cron). Years run 1970–2099.
 *
 * <p>Times are matched on the wall clock of a zone: a wall time that a daylight-saving change skips runs at the
 * same offset after the change (02:30 becomes 03:30), and a wall time that occurs twice runs once, at the first.
 */
public final class CronExpression {
    private static final int MIN_YEAR = 1970;
    private static final int MAX_YEAR = 2099;
    private static final List<String> MONTHS = List.of("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep",
            "oct", "nov", "dec");
    private static final List<String> DAYS = List.of("sun", "mon", "tue", "wed", "thu", "fri", "sat");
    private static final Map<String, String> MACROS = Map.of(
            "@yearly", "0 0 0 1 1 * *", "@annually", "0 0 0 1 1 * *", "@monthly", "0 0 0 1 * * *",
            "@weekly", "0 0 0 * * 0 *", "@daily", "0 0 0 * * * *", "@midnight", "0 0 0 * * * *",
            "@hourly", "0 0 * * * * *");

    private final String text;
    private final BitSet seconds;
    private final BitSet minutes;
    private final BitSet hours;
    private final BitSet months;
    private final BitSet years;
    private final DayRule days;

    private CronExpression(String text, BitSet seconds, BitSet minutes, BitSet hours, BitSet months, BitSet years,
                           DayRule days) {
        this.text = text;
        this.seconds = seconds;
        this.minutes = minutes;
        this.hours = hours;
        this.months = months;
        this.years = years;
        this.days = days;
    }

    /**
     * @throws IllegalArgumentException naming the field and what is wrong with it
     */
    public static CronExpression parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty cron expression");
        }
        String trimmed = text.trim();
        String expanded = trimmed.startsWith("@") ? MACROS.get(trimmed.toLowerCase(Locale.ROOT)) : trimmed;
        if (expanded == null) {
            throw new IllegalArgumentException("unknown macro " + trimmed);
        }
        String[] f = expanded.split("\\s+");
        if (f.length < 5 || f.length > 7) {
            throw new IllegalArgumentException("expected 5 to 7 fields, found " + f.length);
        }
        int i = 0;
        BitSet seconds = f.length == 7 ? field(f[i++], "second", 0, 59, List.of()) : single(0);
        BitSet minutes = field(f[i++], "minute", 0, 59, List.of());
        BitSet hours = field(f[i++], "hour", 0, 23, List.of());
        String dom = f[i++];
        BitSet months = field(f[i++], "month", 1, 12, MONTHS);
        String dow = f[i++];
        BitSet years = i < f.length ? field(f[i], "year", MIN_YEAR, MAX_YEAR, List.of()) : range(MIN_YEAR, MAX_YEAR);
        return new CronExpression(trimmed, seconds, minutes, hours, months, years, DayRule.of(dom, dow));
    }

    /** Whether {@code text} parses; the reason in the exception otherwise. */
    public static void validate(String text) {
        parse(text);
    }

    /** The first matching time strictly after {@code after} on {@code zone}'s wall clock; null if there is none. */
    public Instant next(Instant after, ZoneId zone) {
        LocalDateTime from = LocalDateTime.ofInstant(after, zone);
        while (true) {
            LocalDateTime local = nextLocal(from.withNano(0).plusSeconds(1));
            if (local == null) {
                return null;
            }
            Instant at = ZonedDateTime.ofLocal(local, zone, null).toInstant();
            if (at.isAfter(after)) {
                return at;
            }
            from = local; // a wall time shifted out of a gap landed at or before the start: look further
        }
    }

    private LocalDateTime nextLocal(LocalDateTime t) {
        while (t.getYear() <= MAX_YEAR) {
            int year = years.nextSetBit(t.getYear());
            if (year < 0) {
                return null;
            }
            if (year != t.getYear()) {
                t = LocalDateTime.of(year, 1, 1, 0, 0);
            }
            int month = months.nextSetBit(t.getMonthValue());
            if (month < 0) {
                t = LocalDateTime.of(year + 1, 1, 1, 0, 0);
                continue;
            }
            if (month != t.getMonthValue()) {
                t = LocalDateTime.of(year, month, 1, 0, 0);
            }
            int day = days.matching(YearMonth.of(year, month)).nextSetBit(t.getDayOfMonth());
            if (day < 0) {
                t = LocalDate.of(year, month, 1).plusMonths(1).atStartOfDay();
                continue;
            }
            if (day != t.getDayOfMonth()) {
                t = LocalDate.of(year, month, day).atStartOfDay();
            }
            int hour = hours.nextSetBit(t.getHour());
            if (hour < 0) {
                t = t.toLocalDate().plusDays(1).atStartOfDay();
                continue;
            }
            if (hour != t.getHour()) {
                t = t.toLocalDate().atTime(hour, 0);
            }
            int minute = minutes.nextSetBit(t.getMinute());
            if (minute < 0) {
                t = t.toLocalDate().atTime(hour, 0).plusHours(1);
                continue;
            }
            if (minute != t.getMinute()) {
                t = t.toLocalDate().atTime(hour, minute);
            }
            int second = seconds.nextSetBit(t.getSecond());
            if (second < 0) {
                t = t.toLocalDate().atTime(hour, minute).plusMinutes(1);
                continue;
            }
            return t.toLocalDate().atTime(LocalTime.of(hour, minute, second));
        }
        return null;
    }

    @Override
    public String toString() {
        return text;
    }

    // ---- parsing ----------------------------------------------------------------------------------------------

    private static BitSet field(String text, String name, int min, int max, List<String> names) {
        BitSet set = new BitSet(max + 1);
        for (String part : text.split(",", -1)) {
            if (part.isEmpty()) {
                throw new IllegalArgumentException("empty list element in the " + name + " field \"" + text + "\"");
            }
            String range = part;
            int step = 1;
            int slash = part.indexOf('/');
            if (slash >= 0) {
                range = part.substring(0, slash);
                step = number(part.substring(slash + 1), name, part);
                if (step < 1) {
                    throw new IllegalArgumentException("step 0 in the " + name + " field \"" + text + "\"");
                }
            }
            int from;
            int to;
            if (range.equals("*") || range.equals("?")) {
                from = min;
                to = max;
            } else {
                int dash = range.indexOf('-', 1);
                from = value(dash < 0 ? range : range.substring(0, dash), name, min, max, names);
                // "5/15" runs from 5 to the end, as in cron.
                to = dash >= 0 ? value(range.substring(dash + 1), name, min, max, names) : slash >= 0 ? max : from;
                if (to < from) {
                    throw new IllegalArgumentException("range " + range + " runs backwards in the " + name
                            + " field");
                }
            }
            for (int v = from; v <= to; v += step) {
                set.set(v);
            }
        }
        return set;
    }

    private static int value(String text, String name, int min, int max, List<String> names) {
        int named = names.indexOf(text.toLowerCase(Locale.ROOT));
        int v = named >= 0 ? named + min : number(text, name, text);
        if (v < min || v > max) {
            throw new IllegalArgumentException(text + " is out of range " + min + "-" + max + " in the " + name
                    + " field");
        }
        return v;
    }

    private static int number(String text, String name, String context) {
        if (text.isEmpty() || text.length() > 4 || !text.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException("\"" + context + "\" is not valid in the " + name + " field");
        }
        return Integer.parseInt(text);
    }

    private static BitSet single(int v) {
        BitSet set = new BitSet();
        set.set(v);
        return set;
    }

    private static BitSet range(int from, int to) {
        BitSet set = new BitSet();
        set.set(from, to + 1);
        return set;
    }

    /** The day-of-month and day-of-week fields together: which days of a month match. */
    private record DayRule(BitSet monthDays, boolean lastDay, boolean lastWeekday, BitSet nearestWeekdays,
                           boolean domRestricted, BitSet weekDays, BitSet lastOfWeekDay, int[][] nthWeekDays,
                           boolean dowRestricted) {

        static DayRule of(String dom, String dow) {
            BitSet monthDays = new BitSet(32);
            BitSet nearest = new BitSet(32);
            boolean last = false;
            boolean lastWeekday = false;
            boolean domRestricted = !dom.equals("*") && !dom.equals("?");
            if (domRestricted) {
                StringBuilder plain = new StringBuilder();
                for (String part : dom.split(",", -1)) {
                    String p = part.toUpperCase(Locale.ROOT);
                    if (p.equals("L")) {
                        last = true;
                    } else if (p.equals("LW")) {
                        lastWeekday = true;
                    } else if (p.endsWith("W")) {
                        nearest.set(value(p.substring(0, p.length() - 1), "day-of-month", 1, 31, List.of()));
                    } else {
                        plain.append(plain.length() > 0 ? "," : "").append(part);
                    }
                }
                if (plain.length() > 0) {
                    monthDays = field(plain.toString(), "day-of-month", 1, 31, List.of());
                }
            } else {
                monthDays = range(1, 31);
            }
            BitSet weekDays = new BitSet(8);
            BitSet lastOf = new BitSet(8);
            List<int[]> nth = new java.util.ArrayList<>();
            boolean dowRestricted = !dow.equals("*") && !dow.equals("?");
            if (dowRestricted) {
                StringBuilder plain = new StringBuilder();
                for (String part : dow.split(",", -1)) {
                    String p = part.toLowerCase(Locale.ROOT);
                    int hash = p.indexOf('#');
                    if (hash > 0) {
                        int k = number(p.substring(hash + 1), "day-of-week", part);
                        if (k < 1 || k > 5) {
                            throw new IllegalArgumentException(part + ": the week number after # must be 1-5 in the "
                                    + "day-of-week field");
                        }
                        nth.add(new int[] {value(p.substring(0, hash), "day-of-week", 0, 7, DAYS) % 7, k});
                    } else if (p.length() > 1 && p.endsWith("l")) {
                        lastOf.set(value(p.substring(0, p.length() - 1), "day-of-week", 0, 7, DAYS) % 7);
                    } else {
                        plain.append(plain.length() > 0 ? "," : "").append(part);
                    }
                }
                if (plain.length() > 0) {
                    BitSet parsed = field(plain.toString(), "day-of-week", 0, 7, DAYS);
                    for (int d = parsed.nextSetBit(0); d >= 0; d = parsed.nextSetBit(d + 1)) {
                        weekDays.set(d % 7);
                    }
                }
            }
            return new DayRule(monthDays, last, lastWeekday, nearest, domRestricted, weekDays, lastOf,
                    nth.toArray(int[][]::new), dowRestricted);
        }

        /** Bit d set: day d of that month matches. */
        BitSet matching(YearMonth ym) {
            int length = ym.lengthOfMonth();
            BitSet dom = new BitSet(32);
            if (domRestricted) {
                dom.or(monthDays);
                dom.clear(length + 1, 32);
                if (lastDay) {
                    dom.set(length);
                }
                if (lastWeekday) {
                    dom.set(nearestWeekday(ym, length));
                }
                for (int d = nearestWeekdays.nextSetBit(0); d >= 0; d = nearestWeekdays.nextSetBit(d + 1)) {
                    if (d <= length) {
                        dom.set(nearestWeekday(ym, d));
                    }
                }
            }
            BitSet dow = new BitSet(32);
            if (dowRestricted) {
                for (int d = 1; d <= length; d++) {
                    int weekday = ym.atDay(d).getDayOfWeek().getValue() % 7; // Sunday 0
                    boolean match = weekDays.get(weekday)
                            || lastOfWeekDay.get(weekday) && d + 7 > length;
                    for (int[] nth : nthWeekDays) {
                        match |= nth[0] == weekday && (d - 1) / 7 + 1 == nth[1];
                    }
                    if (match) {
                        dow.set(d);
                    }
                }
            }
            if (domRestricted && dowRestricted) {
                dom.or(dow);
                return dom;
            }
            if (dowRestricted) {
                return dow;
            }
            if (!domRestricted) {
                dom.set(1, length + 1);
            }
            return dom;
        }

        /** The weekday nearest day {@code d}, never crossing into another month. */
        private static int nearestWeekday(YearMonth ym, int d) {
            DayOfWeek w = ym.atDay(d).getDayOfWeek();
            int length = ym.lengthOfMonth();
            if (w == DayOfWeek.SATURDAY) {
                return d > 1 ? d - 1 : d + 2;
            }
            if (w == DayOfWeek.SUNDAY) {
                return d < length ? d + 1 : d - 2;
            }
            return d;
        }
    }
}
