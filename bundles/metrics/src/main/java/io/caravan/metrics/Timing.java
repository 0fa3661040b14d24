package io.caravan.metrics;

import java.util.concurrent.atomic.DoubleAccumulator;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Durations recorded where they happen (a plan applied, a Raft write) and reported by a {@link MetricSource}:
 * how many, their total and their extremes, in milliseconds. Cheap and thread-safe.
 */
public final class Timing {
    private final LongAdder count = new LongAdder();
    private final DoubleAdder totalMillis = new DoubleAdder();
    private final DoubleAdder squaresMillis = new DoubleAdder();
    private final DoubleAccumulator minMillis = new DoubleAccumulator(Math::min, Double.POSITIVE_INFINITY);
    private final DoubleAccumulator maxMillis = new DoubleAccumulator(Math::max, 0);

    /** Records one duration given by two {@link System#nanoTime()} readings' difference. */
    public void recordNanos(long nanos) {
        recordMillis(nanos / 1_000_000.0);
    }

    public void recordMillis(double millis) {
        count.increment();
        totalMillis.add(millis);
        squaresMillis.add(millis * millis);
        minMillis.accumulate(millis);
        maxMillis.accumulate(millis);
    }

    public long count() {
        return count.sum();
    }

    public double totalMillis() {
        return totalMillis.sum();
    }

    /** 0 before the first duration. */
    public double minMillis() {
        double min = minMillis.get();
        return Double.isInfinite(min) ? 0 : min;
    }

    public double maxMillis() {
        return maxMillis.get();
    }

    /** What was recorded so far, as a {@link MetricSource} reports it. */
    public Snapshot snapshot() {
        return new Snapshot(count(), totalMillis(), minMillis(), maxMillis(), stddevMillis());
    }

    /** Durations recorded: how many, their total, extremes and standard deviation, in milliseconds. */
    public record Snapshot(long count, double totalMillis, double minMillis, double maxMillis, double stddevMillis) {}

    /** The standard deviation of the durations recorded (sample, as go-metrics reports it); 0 below two. */
    public double stddevMillis() {
        long n = count();
        if (n < 2) {
            return 0;
        }
        double mean = totalMillis() / n;
        return Math.sqrt(Math.max(0, (squaresMillis.sum() - n * mean * mean) / (n - 1)));
    }
}
