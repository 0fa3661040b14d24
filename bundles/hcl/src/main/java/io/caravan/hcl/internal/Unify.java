package io.caravan.hcl.internal;

import io.caravan.hcl.Budget;
import io.caravan.hcl.Range;
import io.caravan.hcl.Value;
import io.caravan.hcl.Value.BoolValue;
import io.caravan.hcl.Value.ListValue;
import io.caravan.hcl.Value.NumberValue;
import io.caravan.hcl.Value.ObjectValue;
import io.caravan.hcl.Value.StringValue;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The type unification HCL applies to a conditional's two results ({@code true ? [1] : ["a"]} is {@code ["1"]}):
 * just enough of HCL's type system (cty's unification and its conversions, unsafe ones included) to find the type
 * both results convert to, and to convert the chosen one. Values here carry no list/map distinction, so a value's
 * type is read from its shape (tuple, object, primitive; null and unknown are "dynamic"), which is exactly the type a
 * literal or constructor has; lists and maps arise only as the result of unifying tuples or objects.
 *
 * <p>Unifying nested types re-unifies their parts, so each step is charged to the evaluation's budget.
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

    private final Budget budget;
    private final Range at;

    private Unify(Budget budget, Range at) {
        this.budget = budget;
        this.at = at;
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

    /** The type all of {@code types} convert to, or null if there is none; work is charged to {@code budget}. */
    static Type unify(List<Type> types, Budget budget, Range at) {
        return new Unify(budget, at).unify(types);
    }

    /**
     * Converts {@code v} (of a type that unified to {@code to}) to {@code to}; null when the value turns out not to
     * convert (an object whose attributes have different types, as a map of unknown element type).
     */
    static Value convert(Value v, Type to, Budget budget, Range at) {
        return new Unify(budget, at).convert(v, to);
    }

    private Type unify(List<Type> types) {
        budget.step(at);
        if (types.stream().allMatch(types.get(0)::equals)) {
            return types.get(0);
        }
        int maps = 0;
        int lists = 0;
        int objects = 0;
        int tuples = 0;
        int dynamic = 0;
        for (Type t : types) {
            if (t instanceof MapT) {
                maps++;
            } else if (t instanceof ListT) {
                lists++;
            } else if (t instanceof ObjectT) {
                objects++;
            } else if (t instanceof TupleT) {
                tuples++;
            } else if (t == Prim.DYNAMIC) {
                dynamic++;
            }
        }
        int n = types.size();
        // Types all of one structural kind (or dynamic) unify part by part, to a type none of them may be: cty tries
        // these cases in this order, and a failed "as maps" or "as lists" falls back to the preference order below.
        if (maps > 0 && maps + dynamic == n) {
            return dynamic > 0 ? Prim.DYNAMIC : collectionOf(types, false);
        } else if (maps > 0 && maps + objects + dynamic == n) {
            Type t = asCollection(types, false);
            if (t instanceof MapT) {
                return t;
            }
        } else if (lists > 0 && lists + dynamic == n) {
            return dynamic > 0 ? Prim.DYNAMIC : collectionOf(types, true);
        } else if (lists > 0 && lists + tuples + dynamic == n) {
            Type t = asCollection(types, true);
            if (t instanceof ListT) {
                return t;
            }
        } else if (objects > 0 && objects + dynamic == n) {
            return dynamic > 0 ? Prim.DYNAMIC : unifyObjects(types);
        } else if (tuples > 0 && tuples + dynamic == n) {
            return dynamic > 0 ? Prim.DYNAMIC : unifyTuples(types);
        } else if (objects > 0 && tuples > 0) {
            return null;
        }
        // Otherwise the most preferred of the types that every other converts to.
        for (Type want : preferenceOrder(types)) {
            if (types.stream().allMatch(t -> convertible(t, want))) {
                return want;
            }
        }
        return null;
    }

    /** Lists (or maps) unify to a list (map) of their elements' unified type. */
    private Type collectionOf(List<Type> types, boolean list) {
        List<Type> elements = new ArrayList<>();
        for (Type t : types) {
            elements.add(t instanceof ListT l ? l.element() : ((MapT) t).element());
        }
        Type e = unify(elements);
        return e == null ? null : list ? new ListT(e) : new MapT(e);
    }

    /** Tuples among lists (objects among maps) are first unified as a list (map), then with the lists (maps). */
    private Type asCollection(List<Type> types, boolean list) {
        Predicate<Type> structural = t -> list ? t instanceof TupleT : t instanceof ObjectT;
        Type c = unifyToCollection(types.stream().filter(structural).toList(), list);
        return c == null ? null : unify(types.stream().map(t -> structural.test(t) ? c : t).toList());
    }

    private Type unifyTuples(List<Type> types) {
        int n = ((TupleT) types.get(0)).elements().size();
        if (types.stream().anyMatch(t -> ((TupleT) t).elements().size() != n)) {
            return unifyToCollection(types, true);
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

    private Type unifyObjects(List<Type> types) {
        Map<String, Type> first = ((ObjectT) types.get(0)).attributes();
        if (types.stream().anyMatch(t -> !((ObjectT) t).attributes().keySet().equals(first.keySet()))) {
            return unifyToCollection(types, false);
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
    private Type unifyToCollection(List<Type> types, boolean list) {
        List<Type> elements = new ArrayList<>();
        for (Type t : types) {
            elements.addAll(parts(t));
        }
        Type e = elements.isEmpty() ? null : unify(elements);
        if (e == null) {
            return null;
        }
        Type c = list ? new ListT(e) : new MapT(e);
        return types.stream().allMatch(t -> convertible(t, c)) ? c : null;
    }

    private static Collection<Type> parts(Type t) {
        return t instanceof TupleT tuple ? tuple.elements() : ((ObjectT) t).attributes().values();
    }

    /**
     * Whether cty has a conversion, safe or unsafe, from one type to another (dynamic converts to and from anything,
     * a string to a number or bool, an object to one with a subset of its attributes, a tuple or object to a list or
     * map whose element type all its parts convert to).
     */
    private boolean convertible(Type from, Type to) {
        budget.step(at);
        if (from.equals(to) || from == Prim.DYNAMIC || to == Prim.DYNAMIC) {
            return true;
        } else if (from instanceof Prim && to instanceof Prim) {
            return from == Prim.STRING || to == Prim.STRING; // no conversion between number and bool
        } else if (from instanceof ObjectT f && to instanceof ObjectT t) {
            return t.attributes().entrySet().stream().allMatch(a -> f.attributes().containsKey(a.getKey())
                    && convertible(f.attributes().get(a.getKey()), a.getValue()));
        } else if (from instanceof TupleT f && to instanceof TupleT t) {
            if (f.elements().size() != t.elements().size()) {
                return false;
            }
            for (int i = 0; i < f.elements().size(); i++) {
                if (!convertible(f.elements().get(i), t.elements().get(i))) {
                    return false;
                }
            }
            return true;
        } else if (from instanceof ListT f && to instanceof ListT t) {
            return convertible(f.element(), t.element());
        } else if (from instanceof MapT f && to instanceof MapT t) {
            return convertible(f.element(), t.element());
        } else if (from instanceof TupleT && to instanceof ListT t) {
            return elementType(parts(from), t.element(), true) != null;
        } else if (from instanceof ObjectT && to instanceof MapT t) {
            return elementType(parts(from), t.element(), false) != null;
        } else if (from instanceof MapT f && to instanceof ObjectT t) {
            return t.attributes().values().stream().allMatch(a -> convertible(f.element(), a));
        }
        return false;
    }

    /**
     * The element type a tuple's elements (an object's attributes) take as a list (map) of {@code element}, or null
     * if they do not convert: for a dynamic element type, the type they unify to; a list of dynamic elements then
     * holds only values of unknown type.
     */
    private Type elementType(Collection<Type> parts, Type element, boolean list) {
        if (parts.isEmpty()) {
            return element;
        }
        Type e = element;
        if (e == Prim.DYNAMIC) {
            e = unify(new ArrayList<>(parts));
            if (e == null || list && e == Prim.DYNAMIC && !parts.stream().allMatch(Prim.DYNAMIC::equals)) {
                return null;
            }
        }
        for (Type p : parts) {
            if (!convertible(p, e)) {
                return null;
            }
        }
        return e;
    }

    /**
     * cty's preference order: a topological sort, stable in the given order, by "more general than": a concrete type
     * before dynamic, a string before the other primitives, a list (map) before a tuple (object), and a tuple or
     * object before another of the same shape whose parts are all no more general.
     */
    private static List<Type> preferenceOrder(List<Type> types) {
        int n = types.size();
        List<List<Integer>> edges = new ArrayList<>();
        int[] inDegree = new int[n];
        for (int i = 0; i < n; i++) {
            edges.add(new ArrayList<>());
        }
        for (int i = 0; i < n - 1; i++) {
            for (int j = i + 1; j < n; j++) {
                int cmp = compare(types.get(i), types.get(j));
                if (cmp < 0) {
                    edges.get(i).add(j);
                    inDegree[j]++;
                } else if (cmp > 0) {
                    edges.get(j).add(i);
                    inDegree[i]++;
                }
            }
        }
        Deque<Integer> queue = new ArrayDeque<>();
        for (int i = 0; i < n; i++) {
            if (inDegree[i] == 0) {
                queue.add(i);
            }
        }
        List<Type> order = new ArrayList<>();
        while (!queue.isEmpty()) {
            int i = queue.poll();
            order.add(types.get(i));
            for (int j : edges.get(i)) {
                if (--inDegree[j] == 0) {
                    queue.add(j);
                }
            }
        }
        return order;
    }

    /** Negative when {@code a} is preferred to {@code b}, positive the other way, 0 when neither is. */
    private static int compare(Type a, Type b) {
        if (a == Prim.DYNAMIC || b == Prim.DYNAMIC) {
            return a == b ? 0 : a == Prim.DYNAMIC ? 1 : -1;
        } else if (a instanceof Prim && b instanceof Prim) {
            return a == b || a != Prim.STRING && b != Prim.STRING ? 0 : a == Prim.STRING ? -1 : 1;
        } else if (a instanceof ListT la && b instanceof ListT lb) {
            return compare(la.element(), lb.element());
        } else if (a instanceof MapT ma && b instanceof MapT mb) {
            return compare(ma.element(), mb.element());
        } else if (a instanceof ListT && b instanceof TupleT || a instanceof MapT && b instanceof ObjectT) {
            return -1;
        } else if (a instanceof TupleT && b instanceof ListT || a instanceof ObjectT && b instanceof MapT) {
            return 1;
        } else if (a instanceof ObjectT oa && b instanceof ObjectT ob) {
            Map<String, Type> x = oa.attributes();
            Map<String, Type> y = ob.attributes();
            if (!x.keySet().equals(y.keySet())) {
                return 0;
            }
            return partwise(x.keySet().stream().map(k -> compare(x.get(k), y.get(k))).toList());
        } else if (a instanceof TupleT ta && b instanceof TupleT tb) {
            if (ta.elements().size() != tb.elements().size()) {
                return 0;
            }
            List<Integer> cmps = new ArrayList<>();
            for (int i = 0; i < ta.elements().size(); i++) {
                cmps.add(compare(ta.elements().get(i), tb.elements().get(i)));
            }
            return partwise(cmps);
        }
        return 0;
    }

    /** One structure is preferred to another when some parts are preferred and none the other way. */
    private static int partwise(List<Integer> cmps) {
        boolean aSuper = cmps.stream().anyMatch(c -> c < 0);
        boolean bSuper = cmps.stream().anyMatch(c -> c > 0);
        return aSuper == bSuper ? 0 : aSuper ? -1 : 1;
    }

    private Value convert(Value v, Type to) {
        budget.step(at);
        if (to == Prim.STRING && (v instanceof NumberValue || v instanceof BoolValue)) {
            return Value.of(v.toString());
        } else if (v instanceof ListValue l && to instanceof TupleT t) {
            List<Value> out = new ArrayList<>(l.elements().size());
            for (int i = 0; i < l.elements().size(); i++) {
                Value c = convert(l.elements().get(i), t.elements().get(i));
                if (c == null) {
                    return null;
                }
                out.add(c);
            }
            return Value.list(out);
        } else if (v instanceof ObjectValue o && to instanceof ObjectT t) {
            Map<String, Value> out = new LinkedHashMap<>();
            for (Map.Entry<String, Type> a : t.attributes().entrySet()) {
                Value c = convert(o.attributes().get(a.getKey()), a.getValue());
                if (c == null) {
                    return null;
                }
                out.put(a.getKey(), c);
            }
            return Value.object(out);
        } else if (v instanceof ListValue l && to instanceof ListT t) {
            List<Value> out = convertElements(l.elements(), t.element(), true);
            return out == null ? null : Value.list(out);
        } else if (v instanceof ObjectValue o && to instanceof MapT t) {
            List<Value> converted = convertElements(o.attributes().values(), t.element(), false);
            if (converted == null) {
                return null;
            }
            Map<String, Value> out = new LinkedHashMap<>();
            int i = 0;
            for (String k : o.attributes().keySet()) {
                out.put(k, converted.get(i++));
            }
            return Value.object(out);
        }
        return v; // the same type, dynamic, a null or an unknown
    }

    /**
     * A collection's elements as elements of one type: {@code element}, or what they unify to if that is dynamic. A
     * map's elements of no one type fail only now, as in cty: only a list's are checked with the types.
     */
    private List<Value> convertElements(Collection<Value> values, Type element, boolean list) {
        List<Type> types = values.stream().map(Unify::typeOf).toList();
        Type e = values.isEmpty() ? element : elementType(types, element, list);
        if (e == null || e == Prim.DYNAMIC && !types.stream().allMatch(Prim.DYNAMIC::equals)) {
            return null;
        }
        List<Value> out = new ArrayList<>();
        for (Value v : values) {
            Value c = convert(v, e);
            if (c == null) {
                return null;
            }
            out.add(c);
        }
        return out;
    }
}
