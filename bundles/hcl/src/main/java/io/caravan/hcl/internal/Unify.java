package io.caravan.hcl.internal;

import io.caravan.hcl.Value;
import io.caravan.hcl.Value.BoolValue;
import io.caravan.hcl.Value.ListValue;
import io.caravan.hcl.Value.NumberValue;
import io.caravan.hcl.Value.ObjectValue;
import io.caravan.hcl.Value.StringValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The type unification HCL applies to a conditional's two results ({@code true ? [1] : ["a"]} is {@code ["1"]}):
 * just enough of HCL's type system to find the type both results convert to, and to convert the chosen one.
 * Values here carry no list/map distinction, so a value's type is read from its shape (tuple, object, primitive;
 * null and unknown are "dynamic"), which is exactly the type a literal or constructor has.
 */
final class Unify {

    sealed interface Type permits Prim, TupleT, ObjectT, ListT, MapT {
    }

    enum Prim implements Type { STRING, NUMBER, BOOL, DYNAMIC }

    record TupleT(List<Type> elements) implements Type {
    }

    record ObjectT(Map<String, Type> attributes) implements Type {
    }

    record ListT(Type element) implements Type {
    }

    record MapT(Type element) implements Type {
    }

    private Unify() {
    }

    /** The type of a value as read from its shape. */
    static Type typeOf(Value v) {
        if (v instanceof StringValue) {
            return Prim.STRING;
        } else if (v instanceof NumberValue) {
            return Prim.NUMBER;
        } else if (v instanceof BoolValue) {
            return Prim.BOOL;
        } else if (v instanceof ListValue l) {
            List<Type> els = new ArrayList<>(l.elements().size());
            for (Value e : l.elements()) {
                els.add(typeOf(e));
            }
            return new TupleT(els);
        } else if (v instanceof ObjectValue o) {
            Map<String, Type> attrs = new TreeMap<>();
            o.attributes().forEach((k, x) -> attrs.put(k, typeOf(x)));
            return new ObjectT(attrs);
        }
        return Prim.DYNAMIC;
    }

    /** The type both convert to, or null if there is none. */
    static Type unify(List<Type> types) {
        if (types.stream().allMatch(types.get(0)::equals)) {
            return types.get(0);
        }
        long tuples = types.stream().filter(t -> t instanceof TupleT).count();
        long objects = types.stream().filter(t -> t instanceof ObjectT).count();
        long dynamic = types.stream().filter(t -> t == Prim.DYNAMIC).count();
        if (objects > 0 && tuples > 0) {
            return null;
        }
        if (tuples > 0 && tuples + dynamic == types.size()) {
            return dynamic > 0 ? Prim.DYNAMIC : unifyTuples(types);
        }
        if (objects > 0 && objects + dynamic == types.size()) {
            return dynamic > 0 ? Prim.DYNAMIC : unifyObjects(types);
        }
        // Mixed kinds: the most preferred type that every other converts to. A concrete type is preferred to
        // dynamic and string to the other primitives; a structural type converts only to dynamic.
        for (Type want : preferenceOrder(types)) {
            if (types.stream().allMatch(t -> t.equals(want) || convertible(t, want))) {
                return want;
            }
        }
        return null;
    }

    private static List<Type> preferenceOrder(List<Type> types) {
        List<Type> order = new ArrayList<>();
        types.stream().filter(t -> t == Prim.STRING).forEach(order::add);
        types.stream().filter(t -> t != Prim.STRING && t != Prim.DYNAMIC).forEach(order::add);
        types.stream().filter(t -> t == Prim.DYNAMIC).forEach(order::add);
        return order;
    }

    private static boolean convertible(Type from, Type to) {
        if (to == Prim.DYNAMIC || from == Prim.DYNAMIC) {
            return true;
        }
        if (to == Prim.STRING) {
            return from == Prim.NUMBER || from == Prim.BOOL;
        }
        return false;
    }

    private static Type unifyTuples(List<Type> types) {
        int n = ((TupleT) types.get(0)).elements().size();
        if (types.stream().anyMatch(t -> ((TupleT) t).elements().size() != n)) {
            return unifyAsCollection(types, true);
        }
        List<Type> result = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            List<Type> across = new ArrayList<>();
            for (Type t : types) {
                across.add(((TupleT) t).elements().get(i));
            }
            Type u = unify(across);
            if (u == null) {
                return null;
            }
            result.add(u);
        }
        return new TupleT(result);
    }

    private static Type unifyObjects(List<Type> types) {
        Map<String, Type> first = ((ObjectT) types.get(0)).attributes();
        if (types.stream().anyMatch(t -> !((ObjectT) t).attributes().keySet().equals(first.keySet()))) {
            return unifyAsCollection(types, false);
        }
        Map<String, Type> result = new TreeMap<>();
        for (String name : first.keySet()) {
            List<Type> across = new ArrayList<>();
            for (Type t : types) {
                across.add(((ObjectT) t).attributes().get(name));
            }
            Type u = unify(across);
            if (u == null) {
                return null;
            }
            result.put(name, u);
        }
        return new ObjectT(result);
    }

    /** Tuples of different lengths unify as a list, objects of different attributes as a map. */
    private static Type unifyAsCollection(List<Type> types, boolean list) {
        List<Type> elements = new ArrayList<>();
        for (Type t : types) {
            elements.addAll(list ? ((TupleT) t).elements() : ((ObjectT) t).attributes().values());
        }
        if (elements.isEmpty()) {
            return list ? new ListT(Prim.DYNAMIC) : new MapT(Prim.DYNAMIC);
        }
        Type e = unify(elements);
        if (e == Prim.DYNAMIC) {
            // A conversion to a collection of dynamic elements still needs each source's elements to unify.
            for (Type t : types) {
                List<Type> own = new ArrayList<>(list ? ((TupleT) t).elements() : ((ObjectT) t).attributes().values());
                if (!own.isEmpty() && unify(own) == null) {
                    return null;
                }
            }
        }
        return e == null ? null : list ? new ListT(e) : new MapT(e);
    }

    /** Converts {@code v} (of a type that unified to {@code to}) to {@code to}. */
    static Value convert(Value v, Type to) {
        if (to == Prim.STRING && (v instanceof NumberValue || v instanceof BoolValue)) {
            return Value.of(v.toString());
        }
        if (v instanceof ListValue l && (to instanceof TupleT || to instanceof ListT)) {
            List<Value> out = new ArrayList<>(l.elements().size());
            for (int i = 0; i < l.elements().size(); i++) {
                Type et = to instanceof TupleT t ? t.elements().get(i) : ((ListT) to).element();
                out.add(convert(l.elements().get(i), et));
            }
            return Value.list(out);
        }
        if (v instanceof ObjectValue o && (to instanceof ObjectT || to instanceof MapT)) {
            Map<String, Value> out = new LinkedHashMap<>();
            o.attributes().forEach((k, x) -> out.put(k,
                    convert(x, to instanceof ObjectT t ? t.attributes().get(k) : ((MapT) to).element())));
            return Value.object(out);
        }
        return v;
    }
}
