package io.caravan.metrics.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.caravan.metrics.Telemetry;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The registry (Micrometer) and what the last sampling pass put in it: one meter per series a source reported, its
 * value held in a cell the pass updates; series no longer reported are removed. The prefix filter and the
 * {@code host} label are the registry's meter filters, so both output formats see the same meters.
 */
final class MeterBook {
    /** The last reading of one series; read by HTTP threads while the sampler writes the next. */
    static final class Cell {
        volatile Pass.Reading reading;

        Cell(Pass.Reading reading) {
            this.reading = reading;
        }
    }

    /** A series' meter and cell, and the last pass that reported it (the sweep removes the others). */
    private static final class Held {
        final Meter meter;
        final Cell cell;
        long seen;

        Held(Meter meter, Cell cell, long seen) {
            this.meter = meter;
            this.cell = cell;
            this.seen = seen;
        }
    }

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final Map<Series, Held> held = new HashMap<>();               // the sampler's own
    private final Map<Meter.Id, Cell> cells = new ConcurrentHashMap<>();  // timers' extremes for the JSON summary
    private long passes;

    /** @param host the {@code host} label's value, null for none ({@code disable_hostname}) */
    MeterBook(PrefixFilter filter, String host) {
        if (host != null) {
            registry.config().commonTags("host", host);
        }
        registry.config().meterFilter(MeterFilter.denyUnless(id -> filter.allows(id.getName())));
    }

    /**
     * Takes one pass's readings: new series get a meter, known ones a new value, missing ones are removed. One lookup
     * per series: each is marked with the pass, and the sweep drops the unmarked (a pass may hold 100,000 series).
     */
    synchronized void apply(Pass pass) {
        long current = ++passes;
        pass.readings.forEach((series, reading) -> {
            Held h = held.get(series);
            if (h == null) {
                Cell cell = new Cell(reading);
                Meter meter = register(series, cell);
                held.put(series, new Held(meter, cell, current));
                cells.put(meter.getId(), cell);
            } else {
                h.cell.reading = reading;
                h.seen = current;
            }
        });
        if (held.size() == pass.readings.size()) {
            return; // every held series was reported: nothing to sweep
        }
        held.values().removeIf(h -> {
            if (h.seen == current) {
                return false;
            }
            registry.remove(h.meter);
            cells.remove(h.meter.getId());
            return true;
        });
    }

    private Meter register(Series s, Cell cell) {
        List<Tag> tags = new ArrayList<>();
        s.labels().forEach((k, v) -> tags.add(Tag.of(k, v)));
        return switch (s.kind()) {
            case GAUGE -> Gauge.builder(s.name(), cell, c -> c.reading.value()).tags(tags).strongReference(true)
                    .register(registry);
            case COUNTER -> FunctionCounter.builder(s.name(), cell, c -> c.reading.value()).tags(tags)
                    .register(registry);
            case TIMER -> FunctionTimer.builder(s.name(), cell, c -> c.reading.count(), c -> c.reading.total(),
                    TimeUnit.MILLISECONDS).tags(tags).register(registry);
        };
    }

    /** A meter as both formats write it: its kind, dotted name, labels (host included) and reading. */
    record Row(Series.Kind kind, String name, Map<String, String> labels, Pass.Reading reading) {}

    /** Every published meter, by name then labels. */
    List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (Meter m : registry.getMeters()) {
            Map<String, String> labels = new TreeMap<>();
            m.getId().getTags().forEach(t -> labels.put(t.getKey(), t.getValue()));
            String name = m.getId().getName();
            if (m instanceof Gauge g) {
                rows.add(new Row(Series.Kind.GAUGE, name, labels, Pass.Reading.of(g.value())));
            } else if (m instanceof FunctionCounter c) {
                rows.add(new Row(Series.Kind.COUNTER, name, labels, Pass.Reading.of(c.count())));
            } else if (m instanceof FunctionTimer t) {
                Cell cell = cells.get(m.getId());
                Pass.Reading r = cell == null ? new Pass.Reading(0, 0, 0, 0, 0, 0) : cell.reading;
                rows.add(new Row(Series.Kind.TIMER, name, labels, new Pass.Reading(0, (long) t.count(),
                        t.totalTime(TimeUnit.MILLISECONDS), r.min(), r.max(), r.stddev())));
            }
        }
        rows.sort(Comparator.comparing(Row::name).thenComparing(r -> r.labels().toString()));
        return rows;
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
