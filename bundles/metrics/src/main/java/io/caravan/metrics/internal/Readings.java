package io.caravan.metrics.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.caravan.metrics.Telemetry;

/**
 * What the last sampling pass reported, as both output formats read it: the pass's own map of readings, kept as it
 * is (the prefix filter's drops removed) until the next pass replaces it. Series a pass no longer reports are gone
 * with it. Nothing is kept per series beyond the pass's key and reading: the leader reports seven gauges per job, and
 * a registry's meter per series (Micrometer's, with its id, tags and value holder) cost five times the heap and made
 * every pass reconcile the registry with the pass.
 */
final class Readings {
    private final PrefixFilter filter;
    /** The filter's answer per dotted name; the sampler's thread only. */
    private final Map<String, Boolean> allowed = new HashMap<>();
    private final String host;
    /** The last pass's readings: never changed once published, read by HTTP threads. */
    private volatile Map<Series, Pass.Reading> published = Map.of();

    /** @param host the {@code host} label's value, null for none ({@code disable_hostname}) */
    Readings(PrefixFilter filter, String host) {
        this.filter = filter;
        this.host = host;
    }

    /** How many series the last pass published. */
    int size() {
        return published.size();
    }

    /** Takes one pass's readings in place of the last's (the pass is spent: it takes no more reports). */
    synchronized void apply(Pass pass) {
        Map<Series, Pass.Reading> readings = pass.close();
        if (!filter.allowsAll()) {
            readings.keySet().removeIf(s -> !allowed.computeIfAbsent(s.name(), filter::allows));
        }
        published = readings;
    }

    /** A series as both formats write it: its kind, dotted name, labels (host included) and reading. */
    record Row(Series.Kind kind, String name, Map<String, String> labels, Pass.Reading reading) {}

    /** A row and what it sorts by: its name, then its labels as text (the order the outputs always had). */
    private record Sorted(String name, String labels, Row row) {}

    /** Every published series, by name then labels. */
    List<Row> rows() {
        Map<Series, Pass.Reading> now = published;
        Sorted[] sorted = new Sorted[now.size()];
        int n = 0;
        for (Map.Entry<Series, Pass.Reading> e : now.entrySet()) {
            Series s = e.getKey();
            Map<String, String> labels = s.labels(host);
            sorted[n++] = new Sorted(s.name(), labels.toString(),
                    new Row(s.kind(), s.name(), labels, published(s.kind(), e.getValue())));
        }
        Arrays.sort(sorted, Comparator.comparing(Sorted::name).thenComparing(Sorted::labels));
        List<Row> rows = new ArrayList<>(n);
        for (Sorted s : sorted) {
            Row last = rows.isEmpty() ? null : rows.get(rows.size() - 1);
            if (last != null && last.kind() == s.row().kind() && last.name().equals(s.name())
                    && last.labels().equals(s.row().labels())) {
                // A series' own host label equal to the agent's: one series, its reports adding up as in a pass.
                rows.set(rows.size() - 1, new Row(last.kind(), last.name(), last.labels(),
                        last.reading().plus(s.row().reading())));
            } else {
                rows.add(s.row());
            }
        }
        return rows;
    }

    /** A reading as published: a timer never with a negative count or total (as Micrometer's timers had it). */
    private static Pass.Reading published(Series.Kind kind, Pass.Reading r) {
        return kind == Series.Kind.TIMER && (r.count() < 0 || r.total() < 0)
                ? new Pass.Timed(Math.max(r.count(), 0), Math.max(r.total(), 0), r.min(), r.max(), r.stddev())
                : r;
    }

    /** Nomad's JSON summary of the rows. */
    static Telemetry.Summary summary(List<Row> rows, String timestamp) {
        List<Telemetry.Gauge> gauges = new ArrayList<>();
        List<Telemetry.Sampled> counters = new ArrayList<>();
        List<Telemetry.Sampled> samples = new ArrayList<>();
        for (Row r : rows) {
            Pass.Reading v = r.reading();
            switch (r.kind()) {
                case GAUGE -> gauges.add(new Telemetry.Gauge(r.name(), v.value(), r.labels()));
                // Each increment counts 1, so min = max = mean = 1 (go-metrics' IncrCounter).
                case COUNTER -> counters.add(new Telemetry.Sampled(r.name(), (long) v.value(), v.value(), 1, 1, 1, 0,
                        r.labels()));
                case TIMER -> samples.add(new Telemetry.Sampled(r.name(), v.count(), v.total(), v.min(), v.max(),
                        v.count() == 0 ? 0 : v.total() / v.count(), v.stddev(), r.labels()));
            }
        }
        return new Telemetry.Summary(timestamp, gauges, counters, samples, List.of());
    }
}
