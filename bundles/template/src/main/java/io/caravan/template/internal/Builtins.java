package io.caravan.template.internal;

import io.caravan.template.Args;
import io.caravan.template.TemplateFunction;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Go's predefined template functions. {@code and} and {@code or} are evaluated lazily by the {@link Executor}. */
public final class Builtins {
    /** Marker instances the executor recognises to short-circuit. */
    static final TemplateFunction AND = args -> { throw new IllegalStateException("and is evaluated lazily"); };
    static final TemplateFunction OR = args -> { throw new IllegalStateException("or is evaluated lazily"); };
    /** {@code call} names its argument's node in errors, so the executor runs it. */
    static final TemplateFunction CALL = Builtins::call;

    private Builtins() {}

    public static Map<String, TemplateFunction> all() {
        Map<String, TemplateFunction> m = new LinkedHashMap<>();
        m.put("and", AND);
        m.put("or", OR);
        m.put("not", a -> !Values.truth(a.expect(1).get(0)));
        m.put("len", Builtins::len);
        m.put("index", Builtins::index);
        m.put("slice", Builtins::slice);
        m.put("print", a -> GoFmt.sprint(a.all()));
        m.put("println", a -> GoFmt.sprintln(a.all()));
        m.put("printf", a -> {
            a.expect(1, -1);
            return GoFmt.sprintf(a.string(0), a.all().subList(1, a.size()));
        });
        m.put("html", a -> html(evalArgs(a)));
        m.put("js", a -> js(evalArgs(a)));
        m.put("urlquery", a -> urlQuery(evalArgs(a)));
        m.put("eq", Builtins::eq);
        m.put("ne", a -> {
            a.expect(2);
            return !(Boolean) eq(a);
        });
        m.put("lt", a -> compare(a.expect(2)) < 0);
        m.put("le", a -> compare(a.expect(2)) <= 0);
        m.put("gt", a -> compare(a.expect(2)) > 0);
        m.put("ge", a -> compare(a.expect(2)) >= 0);
        m.put("call", CALL);
        return m;
    }

    private static String evalArgs(Args a) {
        if (a.size() == 1 && a.get(0) instanceof String s) return s;
        return GoFmt.sprint(a.all());
    }

    private static Object len(Args a) {
        Object v = a.expect(1).get(0);
        if (v instanceof String s) return (long) s.getBytes(StandardCharsets.UTF_8).length;
        if (v instanceof Map<?, ?> m) return (long) m.size();
        List<Object> l = Values.asList(v);
        if (l != null) return (long) l.size();
        if (v == null || v == Values.NO_VALUE) throw new TemplateError("len of nil pointer");
        throw new TemplateError("len of type " + Values.typeName(v));
    }

    private static Object index(Args a) {
        a.expect(1, -1);
        Object item = a.get(0);
        if (item == null || item == Values.NO_VALUE) throw new TemplateError("index of untyped nil");
        for (int k = 1; k < a.size(); k++) {
            Object idx = Values.normalize(a.get(k));
            if (item instanceof Map<?, ?> m) {
                Object sample = m.isEmpty() ? null : m.keySet().iterator().next();
                if (idx == null || idx == Values.NO_VALUE) {
                    throw new TemplateError("value is nil; should be " + (sample == null ? "string" : Values.typeName(sample)));
                }
                if (sample != null && !Values.typeName(Values.normalize(sample)).equals(Values.typeName(idx))) {
                    throw new TemplateError("value has type " + Values.typeName(idx) + "; should be "
                            + Values.typeName(Values.normalize(sample)));
                }
                Object key = idx;
                if (!m.containsKey(key) && Values.isInt(idx)) key = findNumericKey(m, (Long) idx);
                if (key != null && m.containsKey(key)) {
                    item = m.get(key);
                } else {
                    item = m.isEmpty() ? Values.NO_VALUE : Values.zeroLike(m.values().iterator().next());
                }
                continue;
            }
            if (item instanceof String s) {
                byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
                int i = checkIndex(idx, bytes.length, "string");
                item = (long) (bytes[i] & 0xff);
                continue;
            }
            List<Object> l = Values.asList(item);
            if (l != null) {
                item = l.get(checkIndex(idx, l.size(), "slice/array"));
                continue;
            }
            if (item == null || item == Values.NO_VALUE) throw new TemplateError("index of nil pointer");
            throw new TemplateError("can't index item of type " + Values.typeName(item));
        }
        return item;
    }

    private static Object findNumericKey(Map<?, ?> m, long idx) {
        for (Object k : m.keySet()) {
            if (Values.isInt(k) && ((Number) k).longValue() == idx) return k;
        }
        return null;
    }

    private static int checkIndex(Object idx, int len, String what) {
        if (idx == null || idx == Values.NO_VALUE) throw new TemplateError("cannot index " + what + " with nil");
        if (!Values.isInt(idx)) throw new TemplateError("cannot index " + what + " with type " + Values.typeName(idx));
        long i = ((Number) idx).longValue();
        if (i < 0 || i >= len) throw new TemplateError("index out of range: " + i);
        return (int) i;
    }

    private static Object slice(Args a) {
        a.expect(1, 4);
        Object item = a.get(0);
        if (item == null || item == Values.NO_VALUE) throw new TemplateError("slice of untyped nil");
        int len;
        List<Object> list = Values.asList(item);
        if (item instanceof String s) {
            if (a.size() > 3) throw new TemplateError("cannot 3-index slice a string");
            len = s.getBytes(StandardCharsets.UTF_8).length;
        } else if (list != null) {
            len = list.size();
        } else {
            throw new TemplateError("can't slice item of type " + Values.typeName(item));
        }
        int[] idx = {0, len, len};
        for (int k = 1; k < a.size(); k++) {
            Object v = Values.normalize(a.get(k));
            if (!Values.isInt(v)) throw new TemplateError("cannot index slice/array with type " + Values.typeName(v));
            long i = ((Number) v).longValue();
            if (i < 0 || i > len) throw new TemplateError("index out of range: " + i);
            idx[k - 1] = (int) i;
        }
        if (a.size() == 4 && idx[1] > idx[2]) throw new TemplateError("invalid slice index: " + idx[1] + " > " + idx[2]);
        if (idx[0] > idx[1]) throw new TemplateError("invalid slice index: " + idx[0] + " > " + idx[1]);
        if (item instanceof String s) {
            // Go slices strings by byte, as index and len count them
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            return new String(b, idx[0], idx[1] - idx[0], StandardCharsets.UTF_8);
        }
        return List.copyOf(list.subList(idx[0], idx[1]));
    }

    static String html(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"': sb.append("&#34;"); break;
                case '\'': sb.append("&#39;"); break;
                case '&': sb.append("&amp;"); break;
                case '<': sb.append("&lt;"); break;
                case '>': sb.append("&gt;"); break;
                case 0: sb.append('\uFFFD'); break;
                default: sb.append(c);
            }
        }
        return sb.toString();
    }

    static String js(String s) {
        StringBuilder sb = new StringBuilder();
        s.codePoints().forEach(c -> {
            switch (c) {
                case '\\': sb.append("\\\\"); break;
                case '\'': sb.append("\\'"); break;
                case '"': sb.append("\\\""); break;
                case '<': sb.append("\\u003C"); break;
                case '>': sb.append("\\u003E"); break;
                case '&': sb.append("\\u0026"); break;
                case '=': sb.append("\\u003D"); break;
                default:
                    if (c < ' ') sb.append(String.format("\\u%04X", c));
                    else if (c >= 0x80 && !Character.isLetterOrDigit(c) && Character.getType(c) == Character.UNASSIGNED) {
                        sb.append(String.format("\\u%04X", c));
                    } else sb.appendCodePoint(c);
            }
        });
        return sb.toString();
    }

    static String urlQuery(String s) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
                    || c == '.' || c == '~') {
                sb.append((char) c);
            } else if (c == ' ') {
                sb.append('+');
            } else {
                sb.append('%').append(String.format("%02X", c));
            }
        }
        return sb.toString();
    }

    private enum Kind { BOOL, INT, FLOAT, STRING, NIL, LIST, MAP, OTHER }

    private static Kind kind(Object v) {
        if (v == null || v == Values.NO_VALUE) return Kind.NIL;
        if (v instanceof Boolean) return Kind.BOOL;
        if (Values.isInt(v)) return Kind.INT;
        if (Values.isFloat(v)) return Kind.FLOAT;
        if (v instanceof String) return Kind.STRING;
        if (v instanceof Map<?, ?>) return Kind.MAP;
        if (Values.asList(v) != null) return Kind.LIST;
        return Kind.OTHER;
    }

    private static Object eq(Args a) {
        if (a.size() < 2) throw new TemplateError("missing argument for comparison");
        Object x = a.get(0);
        Kind kx = kind(x);
        for (int k = 1; k < a.size(); k++) {
            Object y = a.get(k);
            Kind ky = kind(y);
            // lists and maps compare only with nil, as in Go
            if ((kx == Kind.LIST || kx == Kind.MAP) && ky != Kind.NIL) {
                throw new TemplateError("non-comparable type " + GoFmt.toText(x) + ": " + Values.typeName(x));
            }
            if ((ky == Kind.LIST || ky == Kind.MAP) && kx != Kind.NIL) {
                throw new TemplateError("non-comparable type " + GoFmt.toText(y) + ": " + Values.typeName(y));
            }
            boolean same;
            if (kx != ky) {
                if (kx != Kind.NIL && ky != Kind.NIL) throw new TemplateError("incompatible types for comparison");
                same = false;
            } else {
                same = switch (kx) {
                    case NIL -> true;
                    case INT -> ((Number) x).longValue() == ((Number) y).longValue();
                    case FLOAT -> ((Number) x).doubleValue() == ((Number) y).doubleValue();
                    default -> x.equals(y);
                };
            }
            if (same) return true;
        }
        return false;
    }

    private static int compare(Args a) {
        Object x = a.get(0);
        Object y = a.get(1);
        Kind kx = kind(x);
        Kind ky = kind(y);
        if (kx == Kind.BOOL || kx == Kind.NIL || kx == Kind.LIST || kx == Kind.MAP || kx == Kind.OTHER) {
            throw new TemplateError("invalid type for comparison");
        }
        if (kx != ky) throw new TemplateError("incompatible types for comparison");
        return switch (kx) {
            case INT -> Long.compare(((Number) x).longValue(), ((Number) y).longValue());
            case FLOAT -> Double.compare(((Number) x).doubleValue(), ((Number) y).doubleValue());
            default -> compareBytes((String) x, (String) y);
        };
    }

    /** Go compares strings bytewise (UTF-8), which for Java's UTF-16 differs only for supplementary characters. */
    private static int compareBytes(String x, String y) {
        return java.util.Arrays.compareUnsigned(x.getBytes(StandardCharsets.UTF_8), y.getBytes(StandardCharsets.UTF_8));
    }

    private static Object call(Args a) throws Exception {
        a.expect(1, -1);
        Object fn = a.get(0);
        if (fn == null || fn == Values.NO_VALUE) throw new TemplateError("call of nil");
        if (!(fn instanceof TemplateFunction f)) {
            throw new TemplateError("non-function of type " + Values.typeName(fn));
        }
        return f.call(new Args("call", a.all().subList(1, a.size())));
    }
}
