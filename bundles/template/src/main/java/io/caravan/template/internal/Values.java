package io.caravan.template.internal;

import io.caravan.template.Accessible;
import io.caravan.template.TemplateFunction;
import java.lang.reflect.Array;
import java.math.BigInteger;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** How Java values stand in for Go's: kinds, type names, truth, zero values and key order. */
public final class Values {
    /** An absent value (Go's invalid reflect.Value): prints as {@code <no value>} from an action. */
    static final Object NO_VALUE = new Object() {
        @Override public String toString() { return "<no value>"; }
    };

    private Values() {}

    public static boolean isInt(Object v) {
        return v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte
                || v instanceof BigInteger;
    }

    public static boolean isFloat(Object v) {
        return v instanceof Double || v instanceof Float || v instanceof java.math.BigDecimal;
    }

    public static List<Object> arrayAsList(Object array) {
        int n = Array.getLength(array);
        return new AbstractList<>() {
            @Override public Object get(int i) { return Array.get(array, i); }
            @Override public int size() { return n; }
        };
    }

    /** Lists, arrays and other collections as a list; null for anything else. */
    @SuppressWarnings("unchecked")
    static List<Object> asList(Object v) {
        if (v instanceof List<?> l) return (List<Object>) l;
        if (v != null && v.getClass().isArray()) return arrayAsList(v);
        if (v instanceof Collection<?> c) return new ArrayList<>(c);
        return null;
    }

    /** Go's name for the type a value stands for, as %T and error messages print it. */
    public static String typeName(Object v) {
        if (v == null || v == NO_VALUE) return "<nil>";
        if (isInt(v)) return "int";
        if (isFloat(v)) return "float64";
        if (v instanceof String) return "string";
        if (v instanceof Boolean) return "bool";
        if (v instanceof Map<?, ?>) return "map[string]interface {}";
        if (asList(v) != null) return "[]interface {}";
        if (v instanceof TemplateFunction) return "func(...interface {}) (interface {}, error)";
        return v.getClass().getSimpleName();
    }

    /** Go's truth: false, 0, "", empty collections and nil are false; everything else is true. */
    static boolean truth(Object v) {
        if (v == null || v == NO_VALUE) return false;
        if (v instanceof Boolean b) return b;
        if (isInt(v)) return v instanceof BigInteger bi ? bi.signum() != 0 : ((Number) v).longValue() != 0;
        if (isFloat(v)) return ((Number) v).doubleValue() != 0;
        if (v instanceof String s) return !s.isEmpty();
        if (v instanceof Map<?, ?> m) return !m.isEmpty();
        List<Object> l = asList(v);
        if (l != null) return !l.isEmpty();
        return true;
    }

    /** The zero value of the type of {@code sample}, or NO_VALUE when that has no simple zero. */
    static Object zeroLike(Object sample) {
        if (isInt(sample)) return 0L;
        if (isFloat(sample)) return 0.0;
        if (sample instanceof String) return "";
        if (sample instanceof Boolean) return false;
        return NO_VALUE;
    }

    /** Integral numbers as Long, floating ones as Double; other values unchanged. */
    static Object normalize(Object v) {
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) return ((Number) v).longValue();
        if (v instanceof Float || v instanceof java.math.BigDecimal) return ((Number) v).doubleValue();
        return v;
    }

    /** Go sorts map keys for printing and range: numbers by value, strings bytewise, otherwise by text. */
    static final Comparator<Object> KEY_ORDER = (a, b) -> {
        if (a instanceof Number x && b instanceof Number y) return Double.compare(x.doubleValue(), y.doubleValue());
        if (a instanceof String x && b instanceof String y) return x.compareTo(y);
        if (a instanceof Boolean x && b instanceof Boolean y) return Boolean.compare(x, y);
        return String.valueOf(a).compareTo(String.valueOf(b));
    };

    static List<Object> sortedKeys(Map<?, ?> m) {
        List<Object> keys = new ArrayList<>(m.keySet());
        keys.sort(KEY_ORDER);
        return keys;
    }

    static boolean isAccessible(Object v) {
        return v instanceof Accessible || (v != null && v.getClass().isRecord());
    }
}
