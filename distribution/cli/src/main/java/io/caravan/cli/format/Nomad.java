package io.caravan.cli.format;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/** Nomad's small output conventions: short IDs, {@code key = value} blocks, dates, "5m3s ago". */
public final class Nomad {
    /** Go's {@code time.RFC3339}. */
    private static final DateTimeFormatter RFC3339 = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ssXXX");

    private Nomad() {
    }

    /** The first 8 characters, as Nomad prints IDs unless {@code -verbose}. */
    public static String shortId(String id) {
        return id == null ? "" : id.length() > 8 ? id.substring(0, 8) : id;
    }

    /** {@code key = value} lines, the {@code =} aligned. */
    public static void keyValues(PrintWriter out, String... pairs) {
        List<List<String>> rows = new ArrayList<>();
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            rows.add(List.of(pairs[i], pairs[i + 1] == null ? "<none>" : pairs[i + 1]));
        }
        Table.format(rows, " = ").forEach(out::println);
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
}
