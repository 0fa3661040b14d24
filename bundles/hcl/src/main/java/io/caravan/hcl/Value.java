package io.caravan.hcl;

import io.caravan.hcl.internal.Numbers;
import java.math.BigDecimal;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The result of evaluating an expression. Tuples and lists share {@link ListValue}; objects and maps share
 * {@link ObjectValue} (attributes kept in lexicographic order, the order HCL iterates them in).
 * {@link UnknownValue} stands for a reference the caller deferred (see {@link EvalContext#deferring}).
 */
public sealed interface Value {

    NullValue NULL = new NullValue();
    BoolValue TRUE = new BoolValue(true);
    BoolValue FALSE = new BoolValue(false);

    /**
     * How deeply lists and objects built by evaluation may nest (see {@link Budget}). Everything that walks a value
     * (conversion to Java or JSON, equality) recurses, so evaluation refuses deeper values, such as one built by a
     * chain of locals each wrapping the previous one.
     */
    int MAX_DEPTH = 256;

    /**
     * Levels of list and object nesting: 0 for a primitive, 1 for a list of primitives, and so on. Whatever builds
     * them, values deeper than {@code 4 * MAX_DEPTH} are refused with {@link IllegalArgumentException}.
     */
    default int depth() {
        return 0;
    }

    /**
     * Elements of this value written out in full: a collection's own plus its elements' sizes, so a value that
     * holds the same part twice counts it twice (saturating at {@link Long#MAX_VALUE}); 0 for a primitive. Values
     * can share parts, so doubling a list in a chain of locals makes a value of small memory but exponential size,
     * and walking it (to JSON, for equality) would never end: evaluation bounds this by {@link Budget#MAX_ELEMENTS}.
     */
    default long size() {
        return 0;
    }

    /** HCL's name for this value's type, for messages: string, number, bool, null, tuple, object, unknown. */
    String typeName();

    default boolean isNull() {
        return this instanceof NullValue;
    }

    default boolean isKnown() {
        return !(this instanceof UnknownValue);
    }

    /**
     * Plain Java form: String, BigDecimal, Boolean, null, List, Map (sorted); an unknown value becomes itself.
     */
    Object toJava();

    static StringValue of(String s) {
        return new StringValue(s);
    }

    static NumberValue of(long n) {
        return new NumberValue(BigDecimal.valueOf(n));
    }

    static NumberValue of(BigDecimal n) {
        return new NumberValue(n);
    }

    static BoolValue of(boolean b) {
        return b ? TRUE : FALSE;
    }

    static ListValue list(List<? extends Value> elements) {
        return new ListValue(List.copyOf(elements));
    }

    static ListValue list(Value... elements) {
        return new ListValue(List.of(elements));
    }

    static ObjectValue object(Map<String, ? extends Value> attributes) {
        return new ObjectValue(new TreeMap<>(attributes));
    }

    /** Converts String, Number, Boolean, null, List, Map (keys via toString) and Value to a Value. */
    static Value fromJava(Object o) {
        if (o == null) {
            return NULL;
        } else if (o instanceof Value v) {
            return v;
        } else if (o instanceof String s) {
            return of(s);
        } else if (o instanceof Boolean b) {
            return of(b.booleanValue());
        } else if (o instanceof BigDecimal d) {
            return of(d);
        } else if (o instanceof Double || o instanceof Float) {
            return of(new BigDecimal(o.toString()));
        } else if (o instanceof Number n) {
            return of(new BigDecimal(n.toString()));
        } else if (o instanceof List<?> l) {
            List<Value> out = new ArrayList<>();
            for (Object e : l) {
                out.add(fromJava(e));
            }
            return list(out);
        } else if (o instanceof Map<?, ?> m) {
            Map<String, Value> out = new TreeMap<>();
            m.forEach((k, v) -> out.put(String.valueOf(k), fromJava(v)));
            return object(out);
        }
        throw new IllegalArgumentException("No HCL value for " + o.getClass().getName());
    }

    record StringValue(String value) implements Value {
        public StringValue {
            value = nfc(Objects.requireNonNull(value, "value"));
        }

        @Override
        public String typeName() {
            return "string";
        }

        @Override
        public Object toJava() {
            return value;
        }

        @Override
        public String toString() {
            return Numbers.quote(value);
        }
    }

    /**
     * A number. As in HCL (cty), numbers are binary floating point with a 512-bit mantissa; the value held here is
     * the shortest decimal that denotes it exactly, so {@code 0.1} stays {@code 0.1} and {@code 1e3} is {@code 1000}.
     */
    record NumberValue(BigDecimal value) implements Value {
        public NumberValue {
            value = Numbers.canonical(Objects.requireNonNull(value, "value"));
        }

        @Override
        public String typeName() {
            return "number";
        }

        @Override
        public Object toJava() {
            return value;
        }

        /** The number as HCL formats it in strings: plain decimal notation, no exponent. */
        @Override
        public String toString() {
            return value.toPlainString();
        }
    }

    record BoolValue(boolean value) implements Value {
        @Override
        public String typeName() {
            return "bool";
        }

        @Override
        public Object toJava() {
            return value;
        }

        @Override
        public String toString() {
            return Boolean.toString(value);
        }
    }

    record NullValue() implements Value {
        @Override
        public String typeName() {
            return "null";
        }

        @Override
        public Object toJava() {
            return null;
        }

        @Override
        public String toString() {
            return "null";
        }
    }

    /** A tuple or list; {@code depth} and {@code size} are derived from the elements (values passed are ignored). */
    record ListValue(List<Value> elements, int depth, long size) implements Value {
        public ListValue {
            elements = List.copyOf(elements);
            depth = nestedDepth(elements);
            size = nestedSize(elements);
        }

        public ListValue(List<Value> elements) {
            this(elements, 0, 0);
        }

        @Override
        public String typeName() {
            return "tuple";
        }

        @Override
        public Object toJava() {
            List<Object> out = new ArrayList<>();
            for (Value v : elements) {
                out.add(v.toJava());
            }
            return Collections.unmodifiableList(out);
        }

        @Override
        public String toString() {
            return elements.toString();
        }
    }

    /** An object or map; {@code depth} and {@code size} are derived from the attributes (values passed are ignored). */
    record ObjectValue(Map<String, Value> attributes, int depth, long size) implements Value {
        public ObjectValue {
            TreeMap<String, Value> normalized = new TreeMap<>();
            attributes.forEach((k, v) -> normalized.put(nfc(k), v));
            attributes = Collections.unmodifiableSortedMap(normalized);
            depth = nestedDepth(attributes.values());
            size = nestedSize(attributes.values());
        }

        public ObjectValue(Map<String, Value> attributes) {
            this(attributes, 0, 0);
        }

        @Override
        public String typeName() {
            return "object";
        }

        @Override
        public Object toJava() {
            Map<String, Object> out = new LinkedHashMap<>();
            attributes.forEach((k, v) -> out.put(k, v.toJava()));
            return Collections.unmodifiableMap(out);
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("{");
            attributes.forEach((k, v) -> sb.append(sb.length() > 1 ? ", " : "").append(Numbers.quote(k))
                    .append(" = ").append(v));
            return sb.append('}').toString();
        }
    }

    /**
     * HCL's strings are Unicode text in normalization form C (composed), as attribute names of objects are: a
     * decomposed "e\u0301" is stored as "\u00e9". Source names (attributes, block labels) stay as written.
     */
    private static String nfc(String s) {
        return Normalizer.isNormalized(s, Normalizer.Form.NFC) ? s : Normalizer.normalize(s, Normalizer.Form.NFC);
    }

    private static int nestedDepth(Collection<Value> children) {
        int max = 0;
        for (Value v : children) {
            max = Math.max(max, v.depth());
        }
        if (max >= 4 * MAX_DEPTH) {
            throw new IllegalArgumentException("values may be nested at most " + 4 * MAX_DEPTH + " levels deep");
        }
        return max + 1;
    }

    private static long nestedSize(Collection<Value> children) {
        long size = children.size();
        for (Value v : children) {
            size += v.size();
            if (size < 0) {
                return Long.MAX_VALUE;
            }
        }
        return size;
    }

    /**
     * A value not known at evaluation time: the result of an expression that refers to a deferred variable.
     * {@code range} is the expression's source range; its text is recoverable with {@link HclFile#text(Range)}.
     */
    record UnknownValue(Range range) implements Value {
        @Override
        public String typeName() {
            return "unknown";
        }

        @Override
        public Object toJava() {
            return this;
        }
    }
}
