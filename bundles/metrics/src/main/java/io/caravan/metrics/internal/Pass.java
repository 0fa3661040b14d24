package io.caravan.metrics.internal;

import java.util.HashMap;
import java.util.Map;

import io.caravan.metrics.MetricSink;
import io.caravan.metrics.TelemetryOptions;
import io.caravan.metrics.Timing;

/** One sampling pass: what every source reported, the same series reported twice adding up. */
final class Pass implements MetricSink {
    /** A value for a gauge or counter; a timer's count, total, extremes and deviation in milliseconds. */
    record Reading(double value, long count, double total, double min, double max, double stddev) {
        static Reading of(double value) {
            return new Reading(value, 0, 0, 0, 0, 0);
        }

        /** Two reports of one series in a pass: values add up; a timer's extremes come from those with samples. */
        Reading plus(Reading o) {
            if (count == 0 || o.count == 0) {
                Reading timed = count == 0 ? o : this;
                return new Reading(value + o.value, count + o.count, total + o.total, timed.min, timed.max,
                        timed.stddev);
            }
            return new Reading(value + o.value, count + o.count, total + o.total, Math.min(min, o.min),
                    Math.max(max, o.max), Math.max(stddev, o.stddev));
        }
    }

    private final TelemetryOptions options;
    private final Map<Series, Reading> readings = new HashMap<>();
    private boolean closed;

    Pass(TelemetryOptions options) {
        this.options = options;
    }

    /** What was reported; the pass takes no more reports (its map is published as it is). */
    Map<Series, Reading> close() {
        closed = true;
        return readings;
    }

    private Map<Series, Reading> open() {
        if (closed) {
            throw new IllegalStateException("this sampling pass is over");
        }
        return readings;
    }

    @Override
    public void gauge(String name, Map<String, String> labels, double value) {
        open().merge(Series.of(Series.Kind.GAUGE, name, labels), Reading.of(value), Reading::plus);
    }

    @Override
    public void counter(String name, Map<String, String> labels, double total) {
        open().merge(Series.of(Series.Kind.COUNTER, name, labels), Reading.of(total), Reading::plus);
    }

    @Override
    public void timer(String name, Map<String, String> labels, Timing.Snapshot timing) {
        open().merge(Series.of(Series.Kind.TIMER, name, labels), new Reading(0, timing.count(),
                timing.totalMillis(), timing.minMillis(), timing.maxMillis(), timing.stddevMillis()), Reading::plus);
    }

    @Override
    public TelemetryOptions options() {
        return options;
    }
}
