package io.caravan.template;

import io.caravan.template.internal.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** The evaluated arguments of one function call, with checks that fail in Go's words. */
public final class Args {
    private final String function;
    private final List<Object> values;

    public Args(String function, List<Object> values) {
        this.function = function;
        this.values = Collections.unmodifiableList(new ArrayList<>(values));
    }

    public String function() { return function; }

    public int size() { return values.size(); }

    public List<Object> all() { return values; }

    public Object get(int i) { return values.get(i); }

    /** Fails unless there are exactly {@code n} arguments. */
    public Args expect(int n) {
        return expect(n, n);
    }

    /** Fails unless there are {@code min} to {@code max} arguments ({@code max} &lt; 0: no upper bound). */
    public Args expect(int min, int max) {
        if (values.size() < min || (max >= 0 && values.size() > max)) {
            String want = min == max ? Integer.toString(min) : max < 0 ? "at least " + min : min + " to " + max;
            throw new IllegalArgumentException("wrong number of args for " + function + ": want " + want + " got "
                    + values.size());
        }
        return this;
    }

    public String string(int i) {
        Object v = values.get(i);
        if (v instanceof String s) return s;
        throw wrongType(v, "string");
    }

    public long integer(int i) {
        Object v = values.get(i);
        if (Values.isInt(v)) return ((Number) v).longValue();
        throw wrongType(v, "int");
    }

    /** A number of either kind, as a double. */
    public double number(int i) {
        Object v = values.get(i);
        if (v instanceof Number n) return n.doubleValue();
        throw wrongType(v, "float64");
    }

    public boolean bool(int i) {
        Object v = values.get(i);
        if (v instanceof Boolean b) return b;
        throw wrongType(v, "bool");
    }

    /** A list or array, as a list. */
    public List<Object> list(int i) {
        Object v = values.get(i);
        if (v instanceof List<?> l) return Collections.unmodifiableList(l);
        if (v != null && v.getClass().isArray()) return Values.arrayAsList(v);
        throw wrongType(v, "[]interface {}");
    }

    public Map<?, ?> map(int i) {
        Object v = values.get(i);
        if (v instanceof Map<?, ?> m) return m;
        throw wrongType(v, "map[string]interface {}");
    }

    /** A list whose elements are all strings. */
    public List<String> strings(int i) {
        List<String> out = new ArrayList<>();
        for (Object o : list(i)) {
            if (!(o instanceof String s)) throw wrongType(o, "string");
            out.add(s);
        }
        return out;
    }

    private static IllegalArgumentException wrongType(Object v, String want) {
        return new IllegalArgumentException("wrong type for value; expected " + want + "; got " + Values.typeName(v));
    }

    @Override public String toString() { return function + Arrays.toString(values.toArray()); }
}
