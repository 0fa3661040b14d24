package io.caravan.template.internal;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Block-style YAML as consul-template's toYAML (yaml.v2) writes it: sorted keys, two-space indent, no final newline. */
final class Yaml {
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z_/][A-Za-z0-9_./ -]*");
    private static final Pattern LOOKS_TYPED = Pattern.compile(
            "(?i)(true|false|yes|no|on|off|y|n|null|~|[-+]?[0-9][0-9_]*(\\.[0-9]*)?([eE][-+]?[0-9]+)?|[-+]?\\.[0-9]+|\\.inf|\\.nan)");

    private Yaml() {}

    static String write(Object v) {
        StringBuilder sb = new StringBuilder();
        v = Values.normalize(v);
        if (isEmptyOrScalar(v)) {
            sb.append(scalar(v));
        } else {
            block(sb, v, "");
        }
        String out = sb.toString();
        return out.endsWith("\n") ? out.substring(0, out.length() - 1) : out;
    }

    private static boolean isEmptyOrScalar(Object v) {
        if (v instanceof Map<?, ?> m) return m.isEmpty();
        List<Object> l = Values.asList(v);
        return l == null || l.isEmpty();
    }

    private static void block(StringBuilder sb, Object v, String indent) {
        if (v instanceof Map<?, ?> m) {
            for (Object k : Values.sortedKeys(m)) {
                Object val = Values.normalize(m.get(k));
                sb.append(indent).append(scalar(k instanceof String ? k : GoFmt.toText(k))).append(':');
                if (isEmptyOrScalar(val)) {
                    sb.append(' ').append(scalar(val)).append('\n');
                } else {
                    sb.append('\n');
                    // yaml.v2 puts a list's dashes at its key's indentation, a map's keys one level deeper
                    block(sb, val, val instanceof Map ? indent + "  " : indent);
                }
            }
            return;
        }
        for (Object e : Values.asList(v)) {
            Object val = Values.normalize(e);
            sb.append(indent).append("-");
            if (isEmptyOrScalar(val)) {
                sb.append(' ').append(scalar(val)).append('\n');
            } else {
                StringBuilder inner = new StringBuilder();
                block(inner, val, indent + "  ");
                // the first line of the nested block goes on the dash's line
                sb.append(' ').append(inner.substring(indent.length() + 2));
            }
        }
    }

    private static String scalar(Object v) {
        if (v == null || v == Values.NO_VALUE) return "null";
        if (v instanceof Map<?, ?>) return "{}";
        if (v instanceof String s) {
            if (s.isEmpty()) return "\"\"";
            if (PLAIN.matcher(s).matches() && !LOOKS_TYPED.matcher(s).matches() && !s.endsWith(" ")
                    && !s.contains(" -") && !s.contains(": ")) {
                return s;
            }
            return GoFmt.quote(s);
        }
        if (Values.asList(v) != null) return "[]";
        return GoFmt.toText(v);
    }
}
