package io.caravan.template.internal;

import io.caravan.template.Accessible;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** JSON as Go's encoding/json writes it (sorted keys, HTML-safe escapes) and reads it (numbers as float64). */
final class Json {
    private Json() {}

    static String write(Object v, boolean pretty) {
        StringBuilder sb = new StringBuilder();
        write(sb, v, pretty ? "" : null);
        return sb.toString();
    }

    /** {@code indent} null: compact; otherwise the current indentation. */
    private static void write(StringBuilder sb, Object v, String indent) {
        v = Values.normalize(v);
        if (v == null || v == Values.NO_VALUE) {
            sb.append("null");
        } else if (v instanceof Boolean || v instanceof Long || v instanceof java.math.BigInteger) {
            sb.append(v);
        } else if (v instanceof Double d) {
            sb.append(number(d));
        } else if (v instanceof String s) {
            string(sb, s);
        } else if (v instanceof Map<?, ?> m) {
            List<Object> keys = Values.sortedKeys(m);
            Map<String, Object> entries = new LinkedHashMap<>();
            for (Object k : keys) entries.put(k instanceof String s ? s : GoFmt.toText(k), m.get(k));
            object(sb, entries, indent);
        } else if (Values.asList(v) != null) {
            List<Object> l = Values.asList(v);
            if (l.isEmpty()) {
                sb.append("[]");
                return;
            }
            sb.append('[');
            String inner = indent == null ? null : indent + "  ";
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) sb.append(',');
                if (inner != null) sb.append('\n').append(inner);
                write(sb, l.get(i), inner);
            }
            if (indent != null) sb.append('\n').append(indent);
            sb.append(']');
        } else if (v.getClass().isRecord() && !(v instanceof Accessible)) {
            Map<String, Object> entries = new LinkedHashMap<>();
            for (RecordComponent rc : v.getClass().getRecordComponents()) {
                try {
                    rc.getAccessor().setAccessible(true);
                    entries.put(rc.getName(), rc.getAccessor().invoke(v));
                } catch (ReflectiveOperationException e) {
                    throw new TemplateError("json: cannot read " + rc.getName() + " of " + Values.typeName(v));
                }
            }
            object(sb, entries, indent);
        } else {
            throw new TemplateError("json: unsupported type: " + Values.typeName(v));
        }
    }

    private static void object(StringBuilder sb, Map<String, Object> entries, String indent) {
        if (entries.isEmpty()) {
            sb.append("{}");
            return;
        }
        sb.append('{');
        String inner = indent == null ? null : indent + "  ";
        boolean first = true;
        for (Map.Entry<String, Object> e : entries.entrySet()) {
            if (!first) sb.append(',');
            first = false;
            if (inner != null) sb.append('\n').append(inner);
            string(sb, e.getKey());
            sb.append(inner == null ? ":" : ": ");
            write(sb, e.getValue(), inner);
        }
        if (indent != null) sb.append('\n').append(indent);
        sb.append('}');
    }

    /** Go writes floats plainly unless tiny or huge, then in exponent form without padding ("1e-07"→"1e-7"). */
    static String number(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) throw new TemplateError("json: unsupported value: " + d);
        if (d == 0) return "0";
        double abs = Math.abs(d);
        String sign = d < 0 ? "-" : "";
        BigDecimal bd = new BigDecimal(Double.toString(abs)).stripTrailingZeros();
        if (abs < 1e-6 || abs >= 1e21) {
            String u = bd.unscaledValue().toString();
            int exp = u.length() - bd.scale() - 1;
            String mantissa = u.length() > 1 ? u.charAt(0) + "." + u.substring(1) : u;
            return sign + mantissa + "e" + (exp < 0 ? "-" : "+") + Math.abs(exp);
        }
        return sign + bd.toPlainString();
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                case '\t': sb.append("\\t"); break;
                case '<': case '>': case '&': case '\u2028': case '\u2029':
                    sb.append(String.format("\\u%04x", (int) c));
                    break;
                default:
                    if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
            }
        }
        sb.append('"');
    }

    // ---- reading

    static Object parse(String text) {
        Reader r = new Reader(text);
        r.skip();
        Object v = r.value(0);
        r.skip();
        if (r.pos < text.length()) throw r.error("invalid character '" + text.charAt(r.pos) + "' after top-level value");
        return v;
    }

    private static final class Reader {
        final String s;
        int pos;

        Reader(String s) { this.s = s; }

        TemplateError error(String msg) { return new TemplateError(msg + " (at offset " + pos + ")"); }

        void skip() {
            while (pos < s.length() && " \t\r\n".indexOf(s.charAt(pos)) >= 0) pos++;
        }

        Object value(int depth) {
            if (depth > 512) throw error("exceeded max depth");
            if (pos >= s.length()) throw error("unexpected end of JSON input");
            char c = s.charAt(pos);
            switch (c) {
                case '{': {
                    pos++;
                    Map<String, Object> m = new LinkedHashMap<>();
                    skip();
                    if (peek() == '}') { pos++; return m; }
                    while (true) {
                        skip();
                        if (peek() != '"') throw error("expected object key");
                        String k = str();
                        skip();
                        if (peek() != ':') throw error("expected ':' after object key");
                        pos++;
                        skip();
                        m.put(k, value(depth + 1));
                        skip();
                        char n = peek();
                        pos++;
                        if (n == '}') return m;
                        if (n != ',') throw error("expected ',' or '}' in object");
                    }
                }
                case '[': {
                    pos++;
                    List<Object> l = new ArrayList<>();
                    skip();
                    if (peek() == ']') { pos++; return l; }
                    while (true) {
                        skip();
                        l.add(value(depth + 1));
                        skip();
                        char n = peek();
                        pos++;
                        if (n == ']') return l;
                        if (n != ',') throw error("expected ',' or ']' in array");
                    }
                }
                case '"': return str();
                case 't': return literal("true", Boolean.TRUE);
                case 'f': return literal("false", Boolean.FALSE);
                case 'n': return literal("null", null);
                default: return num();
            }
        }

        char peek() {
            if (pos >= s.length()) throw error("unexpected end of JSON input");
            return s.charAt(pos);
        }

        Object literal(String word, Object v) {
            if (!s.startsWith(word, pos)) throw error("invalid literal");
            pos += word.length();
            return v;
        }

        Object num() {
            int st = pos;
            while (pos < s.length() && "+-0123456789.eE".indexOf(s.charAt(pos)) >= 0) pos++;
            String t = s.substring(st, pos);
            if (!t.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
                pos = st;
                throw error("invalid character '" + (st < s.length() ? s.charAt(st) : ' ') + "' looking for beginning of value");
            }
            return Double.parseDouble(t);
        }

        String str() {
            pos++;
            StringBuilder sb = new StringBuilder();
            while (true) {
                char c = peek();
                pos++;
                if (c == '"') return sb.toString();
                if (c < 0x20) throw error("invalid character in string literal");
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                char e = peek();
                pos++;
                switch (e) {
                    case '"': case '\\': case '/': sb.append(e); break;
                    case 'b': sb.append('\b'); break;
                    case 'f': sb.append('\f'); break;
                    case 'n': sb.append('\n'); break;
                    case 'r': sb.append('\r'); break;
                    case 't': sb.append('\t'); break;
                    case 'u':
                        if (pos + 4 > s.length()) throw error("invalid escape");
                        try {
                            sb.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw error("invalid escape");
                        }
                        pos += 4;
                        break;
                    default: throw error("invalid escape in string");
                }
            }
        }
    }
}
