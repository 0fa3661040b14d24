package io.caravan.metrics.internal;

import java.util.HashMap;
import java.util.Map;

import io.caravan.metrics.MetricSink;
import io.caravan.metrics.TelemetryOptions;
import io.caravan.metrics.Timing;

/** One sampling pass: what every source reported, the same series reported twice adding up. */
final class Pass implements MetricSink {
    /**
     * What one series reported: a gauge's or counter's value ({@link Value}, most series: the leader's seven per job),
     * or a timer's count, total, extremes and deviation in milliseconds ({@link Timed}).
     */
    sealed interface Reading permits Value, Timed {
        static Reading of(double value) {
            return new Value(value);
        }

        double value();

        long count();

        double total();

        double min();

        double max();

        double stddev();

        /** Two reports of one series in a pass: values add up; a timer's extremes come from those with samples. */
        default Reading plus(Reading o) {
            if (this instanceof Value && o instanceof Value) {
                return new Value(value() + o.value());
            }
            if (count() == 0 || o.count() == 0) {
                Reading timed = count() == 0 ? o : this;
                return new Timed(count() + o.count(), total() + o.total(), timed.min(), timed.max(), timed.stddev());
            }
            return new Timed(count() + o.count(), total() + o.total(), Math.min(min(), o.min()),
                    Math.max(max(), o.max()), Math.max(stddev(), o.stddev()));
        }
    }

    /** A gauge's or counter's value: 24 bytes, where one record of every field took 64. */
    record Value(double value) implements Reading {
        public long count() {
            return 0;
        }

        public double total() {
            return 0;
        }

        public double min() {
            return 0;
        }

        public double max() {
            return 0;
        }

        public double stddev() {
            return 0;
        }
    }

    /** A timer's durations in milliseconds. */
    record Timed(long count, double total, double min, double max, double stddev) implements Reading {
        public double value() {
            return 0;
        }
    }

    private final TelemetryOptions options;
    private final Map<Series, Reading> readings;
    private boolean closed;

    Pass(TelemetryOptions options) {
        this(options, 0);
    }

    /**
     * @param expected how many series the pass will likely report (the last pass's count): its map is sized for them
     *     at once rather than doubled a dozen times on the way to a leader's hundreds of thousands of job gauges
     */
    Pass(TelemetryOptions options, int expected) {
        this.options = options;
        this.readings = new HashMap<>(Math.max(16, (int) (expected / 0.75f) + 1));
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
        open().merge(Series.of(Series.Kind.TIMER, name, labels), new Timed(timing.count(),
                timing.totalMillis(), timing.minMillis(), timing.maxMillis(), timing.stddevMillis()), Reading::plus);
    }

    @Override
    public TelemetryOptions options() {
        return options;
    }
}
