package io.caravan.metrics.internal;

import java.util.Map;
import java.util.TreeMap;

/** One series as a source reports it: its dotted name and labels (sorted, so equal series are equal keys). */
record Series(Kind kind, String name, Map<String, String> labels) {
    enum Kind { GAUGE, COUNTER, TIMER }

    Series {
        labels = Map.copyOf(labels);
    }

    static Series of(Kind kind, String name, Map<String, String> labels) {
        return new Series(kind, name, new TreeMap<>(labels));
    }
}
