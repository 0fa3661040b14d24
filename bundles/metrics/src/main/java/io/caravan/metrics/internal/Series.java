package io.caravan.metrics.internal;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * One series as a source reports it: its dotted name and labels. A key of the sampler's maps, made for every value of
 * every pass (the leader reports seven per job and task group), so it is cheap to build, hash and compare: the labels
 * are kept as one flat array sorted by name, and the hash is computed once.
 */
final class Series {
    enum Kind { GAUGE, COUNTER, TIMER }

    private static final String[] NONE = new String[0];

    private final Kind kind;
    private final String name;
    /** name0, value0, name1, value1, … sorted by name, so equal series have equal arrays. */
    private final String[] labels;
    private final int hash;

    private Series(Kind kind, String name, String[] labels) {
        this.kind = kind;
        this.name = name;
        this.labels = labels;
        this.hash = (kind.hashCode() * 31 + name.hashCode()) * 31 + Arrays.hashCode(labels);
    }

    static Series of(Kind kind, String name, Map<String, String> labels) {
        if (labels.isEmpty()) {
            return new Series(kind, name, NONE);
        }
        String[] flat = new String[labels.size() * 2];
        int n = 0;
        for (Map.Entry<String, String> e : labels.entrySet()) {
            // Insertion sort by label name: a series has a handful of labels.
            int at = n;
            while (at > 0 && flat[at - 2].compareTo(e.getKey()) > 0) {
                flat[at] = flat[at - 2];
                flat[at + 1] = flat[at - 1];
                at -= 2;
            }
            flat[at] = e.getKey();
            flat[at + 1] = e.getValue();
            n += 2;
        }
        return new Series(kind, name, flat);
    }

    Kind kind() {
        return kind;
    }

    String name() {
        return name;
    }

    /** The labels, sorted by name. */
    Map<String, String> labels() {
        Map<String, String> out = new TreeMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            out.put(labels[i], labels[i + 1]);
        }
        return out;
    }

    /** The labels with {@code host} (unless null), sorted by name; the series' own {@code host} label wins. */
    Map<String, String> labels(String host) {
        Map<String, String> out = labels();
        if (host != null) {
            out.putIfAbsent("host", host);
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Series s && hash == s.hash && kind == s.kind && name.equals(s.name)
                && Arrays.equals(labels, s.labels);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return kind + " " + name + labels();
    }
}
