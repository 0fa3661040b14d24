package io.caravan.cli.format;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;

/** Nomad's small output conventions: short IDs, {@code key = value} blocks, dates, "5m3s ago". */
public final class Nomad {
    /** Go's {@code time.RFC3339}. */
    private static final DateTimeFormatter RFC3339 = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ssXXX");
    private static final DateTimeFormatter GO_TIME_STRING = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss");

    private Nomad() {
    }

    /** Nomad's placeholder for an empty cell or value. */
    public static final String NONE = "<none>";

    /** The first 8 characters, as Nomad prints IDs unless {@code -verbose}. */
    public static String shortId(String id) {
        return id == null ? "" : id.length() > 8 ? id.substring(0, 8) : id;
    }

    /** The whole ID with {@code -verbose}, else the short one. */
    public static String id(String id, boolean full) {
        return full ? (id == null ? "" : id) : shortId(id);
    }

    /** {@code key = value} lines, the {@code =} aligned; empty values show as {@code <none>}, as Nomad's formatKV. */
    public static void keyValues(PrintWriter out, String... pairs) {
        keyValues(out, pairsToRows(pairs));
    }

    /** As above, for rows built up conditionally ({@code [key, value]} each). */
    public static void keyValues(PrintWriter out, List<List<String>> pairs) {
        List<List<String>> rows = new ArrayList<>();
        for (List<String> pair : pairs) {
            String value = pair.get(1);
            rows.add(List.of(pair.get(0), value == null || value.isEmpty() ? NONE : value));
        }
        Table.format(rows, " = ").forEach(out::println);
    }

    private static List<List<String>> pairsToRows(String... pairs) {
        List<List<String>> rows = new ArrayList<>();
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            rows.add(java.util.Arrays.asList(pairs[i], pairs[i + 1]));
        }
        return rows;
    }

    /** Go's {@code formatTime}: RFC3339 in {@code zone}, as the monitors stamp their lines. */
    public static String time(Instant instant, ZoneId zone) {
        return RFC3339.format(instant.atZone(zone));
    }

    /** Unix nanoseconds as Go's RFC3339 in {@code zone}; empty for a zero time. */
    public static String date(long unixNanos, ZoneId zone) {
        return unixNanos < 1_000_000_000L ? "" : RFC3339.format(Instant.ofEpochSecond(0, unixNanos).atZone(zone));
    }

    /** Nomad's prettyTimeDiff: the two largest units, e.g. {@code 1h2m ago}, {@code 5m3s ago}, {@code 3s ago}. */
    public static String ago(long unixNanos, Instant now) {
        if (unixNanos <= 0) {
            return "";
        }
        long seconds = Math.max(0, Duration.between(Instant.ofEpochSecond(0, unixNanos), now).getSeconds());
        long[] amounts = {seconds / 86_400 / 365, seconds / 86_400 % 365, seconds / 3600 % 24, seconds / 60 % 60,
                seconds % 60};
        String[] units = {"y", "d", "h", "m", "s"};
        StringBuilder out = new StringBuilder();
        int shown = 0;
        for (int i = 0; i < amounts.length && shown < 2; i++) {
            if (amounts[i] > 0 || shown > 0) {
                if (amounts[i] > 0) {
                    out.append(amounts[i]).append(units[i]);
                }
                shown++;
            }
        }
        return (out.length() == 0 ? "0s" : out) + " ago";
    }

    /** Go's {@code %q} for the plain strings the CLI quotes: in double quotes, backslash, quote, controls escaped. */
    public static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : (s == null ? "" : s).toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                default -> out.append(c);
            }
        }
        return out.append('"').toString();
    }

    /** A Go {@code time.Time} field (RFC 3339 text) as {@link #time}; empty when missing, unparsable or zero. */
    public static String time(JsonNode goTime, ZoneId zone) {
        Instant t = instant(goTime);
        return t == null ? "" : time(t, zone);
    }

    /** A Go {@code time.Time} field, or null when missing, unparsable or Go's zero time. */
    public static Instant instant(JsonNode goTime) {
        String text = Json.text(goTime);
        if (text.isEmpty()) {
            return null;
        }
        try {
            Instant t = OffsetDateTime.parse(text).toInstant();
            return t.getEpochSecond() < 1 ? null : t;
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * A Go {@code time.Time} field as Go's {@code Time.String()} prints it ({@code %v}), as Nomad shows token times:
     * {@code 2022-08-23 12:16:09.680699039 +0000 UTC}, the fraction without trailing zeros; empty when missing or
     * unparsable.
     */
    public static String goTimeString(JsonNode goTime) {
        OffsetDateTime t;
        try {
            t = OffsetDateTime.parse(Json.text(goTime));
        } catch (DateTimeParseException e) {
            return "";
        }
        StringBuilder out = new StringBuilder(GO_TIME_STRING.format(t));
        if (t.getNano() != 0) {
            out.append('.').append(String.format(Locale.ROOT, "%09d", t.getNano()).replaceAll("0+$", ""));
        }
        int seconds = t.getOffset().getTotalSeconds();
        String offset = String.format(Locale.ROOT, "%s%02d%02d", seconds < 0 ? "-" : "+", Math.abs(seconds) / 3600,
                Math.abs(seconds) / 60 % 60);
        // A parsed "Z" is Go's UTC location; any other offset is a zone without a name, printed as the offset.
        return out.append(' ').append(offset).append(' ')
                .append(t.getOffset().equals(ZoneOffset.UTC) ? "UTC" : offset).toString();
    }

    /** humanize's {@code IBytes} for a size in MiB: {@code 300 MiB}, {@code 1.0 GiB}, {@code 16 GiB}. */
    public static String mebibytes(long mib) {
        return bytes(mib * 1024.0 * 1024.0);
    }

    /** humanize's {@code IBytes}: {@code 0 B}, {@code 1.5 KiB}, {@code 300 MiB}. */
    public static String bytes(double value) {
        if (value < 10) {
            return (long) value + " B";
        }
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        int exponent = (int) Math.floor(Math.log(value) / Math.log(1024));
        double scaled = Math.floor(value / Math.pow(1024, exponent) * 10 + 0.5) / 10;
        return String.format(java.util.Locale.ROOT, scaled < 10 ? "%.1f %s" : "%.0f %s", scaled, units[exponent]);
    }

    /** A percentage as Nomad prints usage: two decimals and a percent sign. */
    public static String percent(double value) {
        return String.format(java.util.Locale.ROOT, "%.2f%%", value);
    }
}
