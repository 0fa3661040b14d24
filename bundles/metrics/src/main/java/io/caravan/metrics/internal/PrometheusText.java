package io.caravan.metrics.internal;

import java.util.List;
import java.util.Map;

/**
 * Prometheus' text exposition format 0.0.4, with the names Nomad's Prometheus sink gives (go-metrics): the dotted name
 * with every character Prometheus does not allow turned into {@code _} ({@code nomad.nomad.rpc.request} →
 * {@code nomad_nomad_rpc_request}), counters without a {@code _total} suffix, samples as summaries in milliseconds
 * ({@code _sum}, {@code _count}), and the dotted name as help. Micrometer's own Prometheus registry renames counters
 * ({@code _total}) and timers ({@code _seconds}), which would break dashboards written for Nomad.
 */
final class PrometheusText {
    private PrometheusText() {
    }

    static String write(List<Readings.Row> rows) {
        StringBuilder out = new StringBuilder();
        String family = null;
        for (Readings.Row r : rows) {   // sorted by name: one family's rows are together
            String name = metricName(r.name());
            if (!name.equals(family)) {
                family = name;
                out.append("# HELP ").append(name).append(' ').append(help(r.name())).append('\n');
                out.append("# TYPE ").append(name).append(' ').append(switch (r.kind()) {
                    case GAUGE -> "gauge";
                    case COUNTER -> "counter";
                    case TIMER -> "summary";
                }).append('\n');
            }
            switch (r.kind()) {
                case GAUGE, COUNTER -> line(out, name, r.labels(), r.reading().value());
                case TIMER -> {
                    line(out, name + "_sum", r.labels(), r.reading().total());
                    line(out, name + "_count", r.labels(), r.reading().count());
                }
            }
        }
        return out.toString();
    }

    /** A metric name: {@code [a-zA-Z_:][a-zA-Z0-9_:]*}. */
    static String metricName(String dotted) {
        return sanitize(dotted, true);
    }

    private static String sanitize(String s, boolean colons) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colons && c == ':')
                    || (i > 0 && c >= '0' && c <= '9');
            b.append(ok ? c : '_');
        }
        return b.toString();
    }

    private static void line(StringBuilder out, String name, Map<String, String> labels, double value) {
        out.append(name);
        if (!labels.isEmpty()) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<String, String> l : labels.entrySet()) {
                out.append(first ? "" : ",").append(sanitize(l.getKey(), false)).append("=\"")
                        .append(escape(l.getValue())).append('"');
                first = false;
            }
            out.append('}');
        }
        out.append(' ').append(number(value)).append('\n');
    }

    private static String escape(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    private static String help(String v) {
        return v.replace("\\", "\\\\").replace("\n", "\\n");
    }

    private static String number(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
