package io.caravan.hcl.internal;

import io.caravan.hcl.Budget;
import io.caravan.hcl.Diagnostic;
import io.caravan.hcl.EvalContext;
import io.caravan.hcl.Expression;
import io.caravan.hcl.HclException;
import io.caravan.hcl.HclFunction;
import io.caravan.hcl.Operator;
import io.caravan.hcl.Range;
import io.caravan.hcl.TemplatePart;
import io.caravan.hcl.Value;
import io.caravan.hcl.Value.BoolValue;
import io.caravan.hcl.Value.ListValue;
import io.caravan.hcl.Value.NullValue;
import io.caravan.hcl.Value.NumberValue;
import io.caravan.hcl.Value.ObjectValue;
import io.caravan.hcl.Value.StringValue;
import io.caravan.hcl.Value.UnknownValue;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Evaluates expressions to {@link Value}s. Unknown values (deferred variables) propagate: any operation on one
 * yields unknown, and a template renders the affected sequence back as its source text.
 */
public final class Evaluator {

    /** Variables introduced by {@code for} expressions and the current splat element, innermost first. */
    private record Scope(Map<String, Value> variables, Value splatItem, Scope parent) {
    }

    private final EvalContext ctx;
    private final Budget budget;
    /**
     * Above 0 while a 'for' condition is checked with unknown variables: a template with an unknown part is then
     * unknown, as in HCL, rather than rendering the part back as its source (which suits deferred references).
     */
    private int probing;

    private Evaluator(EvalContext ctx) {
        this.ctx = ctx;
        this.budget = ctx.budget() != null ? ctx.budget() : new Budget();
    }

    public static Value evaluate(Expression e, EvalContext ctx) {
        return new Evaluator(ctx == null ? EvalContext.empty() : ctx).eval(e, null);
    }

    private static HclException error(String summary, String detail, Range at) {
        return new HclException(Diagnostic.error(summary, detail, at));
    }

    /** A list or object built at {@code at} (the caller has charged its elements), within the limits on values. */
    private static Value collection(Supplier<Value> build, Range at) {
        Value v;
        try {
            v = build.get();
        } catch (IllegalArgumentException e) { // deeper than any value should be: see Value.depth
            throw tooDeep(at);
        }
        return bounded(v, at);
    }

    private static Value bounded(Value v, Range at) {
        if (v.depth() > Value.MAX_DEPTH) {
            throw tooDeep(at);
        }
        if (v.size() > Budget.MAX_ELEMENTS) {
            throw error("Result too large", "This value would have more than the limit of " + Budget.MAX_ELEMENTS
                    + " list or object elements when written out in full (a part it holds more than once counts "
                    + "each time).", at);
        }
        return v;
    }

    private static HclException tooDeep(Range at) {
        return error("Value too deeply nested", "Lists and objects may be nested at most " + Value.MAX_DEPTH
                + " levels deep.", at);
    }

    private Value eval(Expression e, Scope scope) {
        budget.step(e.range());
        if (e instanceof Expression.Literal l) {
            return l.value();
        } else if (e instanceof Expression.Template t) {
            return template(t, scope);
        } else if (e instanceof Expression.Variable v) {
            return variable(v, scope);
        } else if (e instanceof Expression.GetAttr g) {
            return getAttr(eval(g.object(), scope), g);
        } else if (e instanceof Expression.Index i) {
            return index(eval(i.collection(), scope), eval(i.key(), scope), i);
        } else if (e instanceof Expression.Splat s) {
            return splat(s, scope);
        } else if (e instanceof Expression.SplatItem item) {
            for (Scope s = scope; s != null; s = s.parent()) {
                if (s.splatItem() != null) {
                    return s.splatItem();
                }
            }
            throw error("Invalid splat", "A splat item can only be used inside a splat expression.", item.range());
        } else if (e instanceof Expression.Call c) {
            return call(c, scope);
        } else if (e instanceof Expression.Tuple t) {
            budget.elements(t.elements().size(), t.range());
            List<Value> out = new ArrayList<>();
            for (Expression el : t.elements()) {
                out.add(eval(el, scope));
            }
            return collection(() -> Value.list(out), t.range());
        } else if (e instanceof Expression.ObjectCons o) {
            return object(o, scope);
        } else if (e instanceof Expression.For f) {
            return forExpr(f, scope);
        } else if (e instanceof Expression.Unary u) {
            return unary(u, scope);
        } else if (e instanceof Expression.Binary b) {
            return binary(b, scope);
        } else if (e instanceof Expression.Conditional c) {
            Value cond = eval(c.condition(), scope);
            if (!cond.isKnown()) {
                // HCL unifies the results' types before it reads the condition: x ? "" : [] fails while x is unknown.
                Unify.Type a = typeOf(c.whenTrue(), scope);
                Unify.Type b = typeOf(c.whenFalse(), scope);
                if (a != null && b != null && a != Unify.Prim.DYNAMIC && b != Unify.Prim.DYNAMIC
                        && Unify.unify(List.of(a, b), budget, c.range()) == null) {
                    throw inconsistentTypes(c, "neither converts to the type of the other");
                }
                return new UnknownValue(c.range());
            }
            return conditional(c, conditionTrue(cond, c.condition().range()), scope);
        } else if (e instanceof Expression.Parens p) {
            return eval(p.expression(), scope);
        }
        throw new IllegalStateException("unhandled expression " + e.getClass());
    }

    /**
     * Only the chosen branch's errors count, but the result has the type both branches unify to, as in HCL:
     * {@code true ? 1 : "a"} is {@code "1"}, {@code true ? [1] : ["a"]} is {@code ["1"]}, {@code true ? 1 : false}
     * is an error. A null, unknown or failing branch unifies with anything.
     */
    private Value conditional(Expression.Conditional c, boolean which, Scope scope) {
        Expression chosenExpr = which ? c.whenTrue() : c.whenFalse();
        Value chosen = eval(chosenExpr, scope);
        // A null from a conditional and an unknown result of an operator have types, which must unify too:
        // false ? true : (true ? null : 4) fails.
        boolean typed = chosen.isKnown() && !chosen.isNull();
        Unify.Type chosenType = typed ? null
                : !chosen.isKnown() ? unknownType(chosenExpr, scope)
                : unwrap(chosenExpr) instanceof Expression.Conditional ? typeOf(chosenExpr, scope) : null;
        if (!typed && (chosenType == null || chosenType == Unify.Prim.DYNAMIC)) {
            return chosen;
        }
        Unify.Type otherType = typeOf(which ? c.whenFalse() : c.whenTrue(), scope);
        if (otherType == null || otherType == Unify.Prim.DYNAMIC) {
            return chosen;
        }
        if (typed) {
            budget.elements(chosen.size(), c.range()); // reading a type walks the whole value
            chosenType = Unify.typeOf(chosen);
        }
        Unify.Type to = Unify.unify(List.of(chosenType, otherType), budget, c.range());
        if (to == null) {
            throw inconsistentTypes(c, "one is of type " + chosen.typeName() + " and cannot be converted to the type "
                    + "of the other");
        }
        Value converted = typed ? Unify.convert(chosen, to, budget, chosenExpr.range()) : chosen;
        if (converted == null) {
            throw error("Inconsistent conditional result types", "The " + (which ? "true" : "false") + " result value "
                    + "has the wrong type: its elements are not all of one type.", chosenExpr.range());
        }
        return converted;
    }

    private static HclException inconsistentTypes(Expression.Conditional c, String why) {
        return error("Inconsistent conditional result types", "The true and false result expressions must have "
                + "consistent types: " + why + ".", Range.between(c.whenTrue().range(), c.whenFalse().range()));
    }

    /**
     * The type of an expression's result for unification, as HCL has it even where evaluation fails: an operator's,
     * a template's, a tuple or object of its parts' types (also from a 'for'), a conditional's unified type, else the
     * value's; dynamic (which unifies with anything) for an unknown value or a failure of any other kind. A null is
     * Java's null (it takes the other branch's type), except a null from a conditional ({@code true ? null : ""} is a
     * string). Constructors and conditionals are typed from their parts, so each part is evaluated once, however deep
     * they nest.
     */
    private Unify.Type typeOf(Expression e, Scope scope) {
        if (e instanceof Expression.Parens p) {
            return typeOf(p.expression(), scope);
        } else if (e instanceof Expression.Tuple t) {
            List<Unify.Type> elements = new ArrayList<>();
            for (Expression el : t.elements()) {
                elements.add(orDynamic(typeOf(el, scope)));
            }
            return new Unify.TupleT(elements);
        } else if (e instanceof Expression.For f) {
            return forType(f, scope);
        } else if (e instanceof Expression.Splat s) {
            return splatType(s, scope);
        } else if (e instanceof Expression.ObjectCons o) {
            // As a tuple, typed from its items, but any failing or unknown key makes the whole object dynamic.
            Map<String, Unify.Type> attributes = new TreeMap<>();
            for (Expression.ObjectCons.Item item : o.items()) {
                String key;
                try {
                    key = objectKey(item, scope);
                } catch (HclException ex) {
                    key = null;
                }
                Unify.Type type = typeOf(item.value(), scope);
                if (key == null) {
                    return Unify.Prim.DYNAMIC;
                }
                attributes.put(key, orDynamic(type));
            }
            return new Unify.ObjectT(attributes);
        } else if (e instanceof Expression.Conditional c) {
            // As HCL: a null branch takes the other's type, and the branches' types unify.
            Unify.Type a = typeOf(c.whenTrue(), scope);
            Unify.Type b = typeOf(c.whenFalse(), scope);
            Unify.Type other = a == null ? b : a;
            if ((a == null || b == null) && other != null && other != Unify.Prim.DYNAMIC) {
                return other;
            }
            if (a == null || b == null || a == Unify.Prim.DYNAMIC || b == Unify.Prim.DYNAMIC) {
                // No unification then: the result is the chosen branch as it is, an untyped null included.
                try {
                    Value cond = eval(c.condition(), scope);
                    return cond.isKnown() ? (conditionTrue(cond, c.condition().range()) ? a : b) : Unify.Prim.DYNAMIC;
                } catch (HclException ex) {
                    return Unify.Prim.DYNAMIC;
                }
            }
            Unify.Type u = Unify.unify(List.of(a, b), budget, c.range());
            return u == null ? Unify.Prim.DYNAMIC : u;
        }
        Value v;
        try {
            v = eval(e, scope);
        } catch (HclException ex) {
            return failedType(e);
        }
        if (!v.isKnown()) {
            return failedType(e); // HCL's unknown results of operators and templates have their types
        }
        if (v.isNull()) {
            return null;
        }
        budget.elements(v.size(), e.range()); // reading a type walks the whole value
        return Unify.typeOf(v);
    }

    /**
     * A 'for' expression's type: HCL keeps the type of each element, a failing one included (of duplicate keys, the
     * first); a failing collection or condition, or a key that is unknown, null or not a string makes the whole
     * result dynamic.
     */
    private Unify.Type forType(Expression.For f, Scope scope) {
        List<Unify.Type> elements = new ArrayList<>();
        Map<String, Unify.Type> attributes = new TreeMap<>();
        Map<String, List<Unify.Type>> groups = new TreeMap<>();
        try {
            List<Value[]> pairs = iterate(eval(f.collection(), scope), f.collection().range());
            if (pairs == null) {
                return Unify.Prim.DYNAMIC;
            }
            probeCondition(f, scope);
            for (Value[] kv : pairs) {
                Scope inner = forScope(f.keyVar(), f.valueVar(), kv, scope);
                if (f.condition() != null) {
                    Boolean b = condition(f, inner);
                    if (b == null) {
                        return Unify.Prim.DYNAMIC;
                    }
                    if (!b) {
                        continue;
                    }
                }
                budget.elements(1, f.range());
                if (!f.isObject()) {
                    elements.add(orDynamic(typeOf(f.value(), inner)));
                    continue;
                }
                Value k = eval(f.keyResult(), inner);
                String key = k.isKnown() && !k.isNull() ? Convert.toText(k) : null;
                if (key == null) {
                    return Unify.Prim.DYNAMIC;
                }
                Unify.Type type = orDynamic(typeOf(f.value(), inner));
                if (f.grouped()) {
                    groups.computeIfAbsent(key, x -> new ArrayList<>()).add(type);
                } else {
                    attributes.putIfAbsent(key, type);
                }
            }
        } catch (HclException ex) {
            return Unify.Prim.DYNAMIC;
        }
        if (!f.isObject()) {
            return new Unify.TupleT(elements);
        }
        groups.forEach((k, types) -> attributes.put(k, new Unify.TupleT(types)));
        return new Unify.ObjectT(attributes);
    }

    /** A splat's type: of each item, failing ones included, as HCL has it; dynamic if its source fails. */
    private Unify.Type splatType(Expression.Splat s, Scope scope) {
        Value source;
        try {
            source = eval(s.source(), scope);
        } catch (HclException ex) {
            return Unify.Prim.DYNAMIC;
        }
        if (!source.isKnown()) {
            return Unify.Prim.DYNAMIC;
        }
        List<Value> elements = source instanceof ListValue l ? l.elements() : source.isNull() ? List.of()
                : List.of(source);
        budget.elements(elements.size(), s.range());
        List<Unify.Type> types = new ArrayList<>();
        for (Value el : elements) {
            types.add(orDynamic(typeOf(s.each(), new Scope(Map.of(), el, scope))));
        }
        return new Unify.TupleT(types);
    }

    private static Unify.Type orDynamic(Unify.Type type) {
        return type == null ? Unify.Prim.DYNAMIC : type;
    }

    private static Expression unwrap(Expression e) {
        return e instanceof Expression.Parens p ? unwrap(p.expression()) : e;
    }

    /** The type of an unknown result: a conditional's is its results' unified type, else as {@link #failedType}. */
    private Unify.Type unknownType(Expression e, Scope scope) {
        return unwrap(e) instanceof Expression.Conditional c ? orDynamic(typeOf(c, scope)) : failedType(e);
    }

    /** The type of the unknown result HCL carries on with when an operator or template fails; else dynamic. */
    private static Unify.Type failedType(Expression expr) {
        Expression e = unwrap(expr);
        if (e instanceof Expression.Binary b) {
            return switch (b.operator()) {
                case ADD, SUBTRACT, MULTIPLY, DIVIDE, MODULO -> Unify.Prim.NUMBER;
                default -> Unify.Prim.BOOL;
            };
        } else if (e instanceof Expression.Unary u) {
            return u.operator() == Operator.NEGATE ? Unify.Prim.NUMBER : Unify.Prim.BOOL;
        } else if (e instanceof Expression.Template t && !(t.parts().size() == 1
                && t.parts().get(0) instanceof TemplatePart.Interpolation)) {
            return Unify.Prim.STRING;
        }
        return Unify.Prim.DYNAMIC;
    }

    private Value variable(Expression.Variable v, Scope scope) {
        for (Scope s = scope; s != null; s = s.parent()) {
            Value val = s.variables().get(v.name());
            if (val != null) {
                return val;
            }
        }
        Value val = ctx.variables().get(v.name());
        if (val != null) {
            return val;
        }
        if (ctx.isDeferred(v.name())) {
            return new UnknownValue(v.range());
        }
        throw error("Unknown variable", "There is no variable named \"" + v.name() + "\".", v.range());
    }

    private static Value getAttr(Value obj, Expression.GetAttr g) {
        if (!obj.isKnown()) {
            return new UnknownValue(g.range());
        }
        if (obj instanceof ObjectValue o) {
            Value v = o.attributes().get(g.name());
            if (v == null) {
                throw error("Unsupported attribute", "This object does not have an attribute named \"" + g.name()
                        + "\".", g.nameRange());
            }
            return v;
        }
        if (obj instanceof NullValue) {
            throw error("Attempt to get attribute from null value", "This value is null, so it does not have any "
                    + "attributes.", g.nameRange());
        }
        if (obj instanceof ListValue) {
            throw error("Unsupported attribute", "Can't access attributes on a list of objects. Did you mean to "
                    + "access attribute \"" + g.name() + "\" for a specific element of the list, or across all "
                    + "elements of the list (with a splat, [*])?", g.nameRange());
        }
        throw error("Unsupported attribute", "Can't access attributes on a primitive-typed value ("
                + obj.typeName() + ").", g.nameRange());
    }

    private static Value index(Value coll, Value key, Expression.Index i) {
        if (!coll.isKnown() || !key.isKnown()) {
            return new UnknownValue(i.range());
        }
        Range keyRange = i.key().range();
        if (coll instanceof NullValue) {
            throw error("Attempt to index null value", "This value is null, so it does not have any indices.",
                    keyRange);
        }
        if (key instanceof NullValue) {
            throw error("Invalid index", "Can't use a null value as an indexing key.", keyRange);
        }
        if (coll instanceof ListValue l) {
            BigDecimal n = Convert.toNumber(key);
            if (n == null || n.stripTrailingZeros().scale() > 0) {
                throw error("Invalid index", "The given key does not identify an element in this collection value: "
                        + "a whole number is required.", keyRange);
            }
            if (n.signum() < 0 || n.compareTo(BigDecimal.valueOf(l.elements().size())) >= 0) {
                throw error("Invalid index", "The given key does not identify an element in this collection value: "
                        + "the collection has " + l.elements().size() + " element(s).", keyRange);
            }
            return l.elements().get(n.intValueExact());
        }
        if (coll instanceof ObjectValue o) {
            String k = Convert.toText(key);
            if (k == null) {
                throw error("Invalid index", "The given key does not identify an element in this collection value: "
                        + "a string is required.", keyRange);
            }
            Value v = o.attributes().get(k);
            if (v == null) {
                throw error("Invalid index", "The given key does not identify an element in this collection value.",
                        keyRange);
            }
            return v;
        }
        throw error("Invalid index", "This value does not have any indices.", keyRange);
    }

    private Value splat(Expression.Splat s, Scope scope) {
        Value source = eval(s.source(), scope);
        if (!source.isKnown()) {
            return new UnknownValue(s.range());
        }
        if (source instanceof NullValue) {
            return Value.list();
        }
        // A non-list value is treated as a one-element list, per the spec.
        List<Value> elements = source instanceof ListValue l ? l.elements() : List.of(source);
        budget.elements(elements.size(), s.range());
        List<Value> out = new ArrayList<>();
        for (Value el : elements) {
            out.add(eval(s.each(), new Scope(Map.of(), el, scope)));
        }
        return collection(() -> Value.list(out), s.range());
    }

    private Value call(Expression.Call c, Scope scope) {
        HclFunction fn = ctx.functions().get(c.name());
        if (fn == null) {
            throw error("Call to unknown function", "There is no function named \"" + c.name() + "\".",
                    c.nameRange());
        }
        List<Value> args = new ArrayList<>();
        for (int i = 0; i < c.args().size(); i++) {
            Expression argExpr = c.args().get(i);
            Value v = eval(argExpr, scope);
            if (c.expandFinal() && i == c.args().size() - 1 && v.isKnown()) {
                if (v instanceof ListValue l) {
                    args.addAll(l.elements());
                    continue;
                }
                throw error("Invalid expanding argument value", v.isNull()
                        ? "The expanding argument (indicated by ...) must not be null."
                        : "The expanding argument (indicated by ...) must be of a tuple or list type.",
                        argExpr.range());
            }
            args.add(v);
        }
        for (Value v : args) {
            if (!v.isKnown()) {
                return new UnknownValue(c.range());
            }
        }
        try {
            Value result = fn.call(List.copyOf(args));
            // Functions bound each result themselves (Budget.checkLength...); this bounds what they add up to.
            if (result instanceof StringValue s) {
                budget.chars(s.value().length(), c.range());
            } else if (result instanceof ListValue l) {
                budget.elements(l.elements().size(), c.range());
            } else if (result instanceof ObjectValue o) {
                budget.elements(o.attributes().size(), c.range());
            }
            return result == null ? Value.NULL : bounded(result, c.range());
        } catch (HclException e) {
            throw e;
        } catch (RuntimeException e) {
            throw error("Error in function call", "Call to function \"" + c.name() + "\" failed: " + e.getMessage()
                    + ".", c.range());
        }
    }

    private Value object(Expression.ObjectCons o, Scope scope) {
        budget.elements(o.items().size(), o.range());
        Map<String, Value> out = new TreeMap<>();
        boolean unknown = false;
        for (Expression.ObjectCons.Item item : o.items()) {
            String key = objectKey(item, scope);
            if (key == null) {
                unknown = true;
                continue;
            }
            out.put(key, eval(item.value(), scope));
        }
        return unknown ? new UnknownValue(o.range()) : collection(() -> Value.object(out), o.range());
    }

    /** An object constructor item's key; null if unknown. */
    private String objectKey(Expression.ObjectCons.Item item, Scope scope) {
        if (item.key() instanceof Expression.Variable v) {
            return v.name(); // a bare identifier names the attribute literally
        } else if (item.key() instanceof Expression.Literal l && !(l.value() instanceof NumberValue)) {
            return l.value().toString(); // so do the keywords true, false and null
        }
        Value k = eval(item.key(), scope);
        if (!k.isKnown()) {
            return null;
        }
        if (k.isNull()) {
            throw error("Null value as key", "Can't use a null value as a key.", item.key().range());
        }
        String key = Convert.toText(k);
        if (key == null) {
            throw error("Incorrect key type", "Can't use this value as a key: a string is required.",
                    item.key().range());
        }
        return key;
    }

    /** The (key, value) pairs a for expression or directive iterates, in HCL's order; null if unknown. */
    private static List<Value[]> iterate(Value coll, Range at) {
        if (!coll.isKnown()) {
            return null;
        }
        List<Value[]> out = new ArrayList<>();
        if (coll instanceof ListValue l) {
            for (int i = 0; i < l.elements().size(); i++) {
                out.add(new Value[] {Value.of(i), l.elements().get(i)});
            }
        } else if (coll instanceof ObjectValue o) {
            o.attributes().forEach((k, v) -> out.add(new Value[] {Value.of(k), v}));
        } else if (coll instanceof NullValue) {
            throw error("Iteration over null value", "A null value cannot be used as the collection in a 'for' "
                    + "expression.", at);
        } else {
            throw error("Iteration over non-iterable value", "A value of type " + coll.typeName()
                    + " cannot be used as the collection in a 'for' expression.", at);
        }
        return out;
    }

    private static Scope forScope(String keyVar, String valueVar, Value[] kv, Scope parent) {
        Map<String, Value> vars = new LinkedHashMap<>();
        if (keyVar != null) {
            vars.put(keyVar, kv[0]);
        }
        vars.put(valueVar, kv[1]);
        return new Scope(vars, null, parent);
    }

    private Value forExpr(Expression.For f, Scope scope) {
        List<Value[]> pairs = iterate(eval(f.collection(), scope), f.collection().range());
        if (pairs == null) {
            return new UnknownValue(f.range());
        }
        probeCondition(f, scope);
        List<Value> tuple = new ArrayList<>();
        Map<String, Value> object = new TreeMap<>();
        Map<String, List<Value>> groups = new TreeMap<>();
        for (Value[] kv : pairs) {
            Scope inner = forScope(f.keyVar(), f.valueVar(), kv, scope);
            if (f.condition() != null) {
                Boolean b = condition(f, inner);
                if (b == null) {
                    return new UnknownValue(f.range());
                }
                if (!b) {
                    continue;
                }
            }
            budget.elements(1, f.range());
            if (!f.isObject()) {
                tuple.add(eval(f.value(), inner));
                continue;
            }
            Value k = eval(f.keyResult(), inner);
            if (!k.isKnown()) {
                return new UnknownValue(f.range());
            }
            if (k.isNull()) {
                throw error("Invalid object key", "Key expression in 'for' expression must not produce a null value.",
                        f.keyResult().range());
            }
            String key = Convert.toText(k);
            if (key == null) {
                throw error("Invalid object key", "The key expression produced an invalid result: a string is "
                        + "required.", f.keyResult().range());
            }
            Value v = eval(f.value(), inner);
            if (f.grouped()) {
                groups.computeIfAbsent(key, x -> new ArrayList<>()).add(v);
            } else if (object.putIfAbsent(key, v) != null) {
                throw error("Duplicate object key", "Two different items produced the key \"" + key + "\" in this "
                        + "'for' expression. If duplicates are expected, use the ellipsis (...) after the value "
                        + "expression to enable grouping by key.", f.keyResult().range());
            }
        }
        if (!f.isObject()) {
            return collection(() -> Value.list(tuple), f.range());
        }
        if (f.grouped()) {
            budget.elements(groups.size(), f.range());
            groups.forEach((k, vs) -> object.put(k, collection(() -> Value.list(vs), f.range())));
        }
        return collection(() -> Value.object(object), f.range());
    }

    /**
     * As HCL, checks a 'for' expression's condition once with unknown variables first, so that its errors show even
     * when the collection is empty.
     */
    private void probeCondition(Expression.For f, Scope scope) {
        if (f.condition() != null) {
            Value unknown = new UnknownValue(f.range());
            probing++;
            try {
                condition(f, forScope(f.keyVar(), f.valueVar(), new Value[] {unknown, unknown}, scope));
            } finally {
                probing--;
            }
        }
    }

    /** A 'for' expression's condition in {@code inner}: null while unknown. */
    private Boolean condition(Expression.For f, Scope inner) {
        Value cond = eval(f.condition(), inner);
        // An unknown bool, string or value of unknown type may yet convert to a bool; an unknown number cannot.
        Unify.Type unknown = cond.isKnown() ? null : unknownType(f.condition(), inner);
        if (unknown == Unify.Prim.BOOL || unknown == Unify.Prim.STRING || unknown == Unify.Prim.DYNAMIC) {
            return null;
        }
        if (cond.isNull()) {
            throw error("Invalid 'for' condition", "The value of the 'if' clause must not be null.",
                    f.condition().range());
        }
        Boolean b = cond.isKnown() ? Convert.toBool(cond) : null;
        if (b == null) {
            throw error("Invalid 'for' condition", "The 'if' clause value is invalid: a bool is required.",
                    f.condition().range());
        }
        return b;
    }

    private Value unary(Expression.Unary u, Scope scope) {
        Value v = eval(u.operand(), scope);
        if (!v.isKnown()) {
            return new UnknownValue(u.range());
        }
        if (u.operator() == Operator.NEGATE) {
            return Value.of(number(v, u.operand().range(), "operand").negate());
        }
        return Value.of(!bool(v, u.operand().range(), "operand"));
    }

    private Value binary(Expression.Binary b, Scope scope) {
        Operator op = b.operator();
        Value left = eval(b.left(), scope);
        // && and || short-circuit on a known left operand, so `x != null && x.a` works: HCL 2.14 (the differential
        // oracle) evaluates both sides, later HCL releases short-circuit (hashicorp/hcl#538), and a jobspec valid
        // either way means the same either way. Deliberate (see package-info).
        if ((op == Operator.AND || op == Operator.OR) && left.isKnown()) {
            boolean l = bool(left, b.left().range(), "left operand");
            if (op == Operator.AND && !l || op == Operator.OR && l) {
                return Value.of(l);
            }
            Value right = eval(b.right(), scope);
            return right.isKnown() ? Value.of(bool(right, b.right().range(), "right operand"))
                    : new UnknownValue(b.range());
        }
        Value right = eval(b.right(), scope);
        if (!left.isKnown() || !right.isKnown()) {
            // As HCL, a known operand must still suit the operator: x > true fails while x is unknown.
            if (op == Operator.AND || op == Operator.OR) {
                if (right.isKnown()) {
                    bool(right, b.right().range(), "right operand"); // the left one is unknown here
                }
            } else if (op != Operator.EQUAL && op != Operator.NOT_EQUAL) {
                if (left.isKnown()) {
                    number(left, b.left().range(), "left operand");
                }
                if (right.isKnown()) {
                    number(right, b.right().range(), "right operand");
                }
            }
            return new UnknownValue(b.range());
        }
        switch (op) {
            case EQUAL:
                return Value.of(Convert.equal(left, right));
            case NOT_EQUAL:
                return Value.of(!Convert.equal(left, right));
            default:
                break;
        }
        BigDecimal l = number(left, b.left().range(), "left operand");
        BigDecimal r = number(right, b.right().range(), "right operand");
        try {
            return switch (op) {
                case GREATER -> Value.of(l.compareTo(r) > 0);
                case GREATER_OR_EQUAL -> Value.of(l.compareTo(r) >= 0);
                case LESS -> Value.of(l.compareTo(r) < 0);
                case LESS_OR_EQUAL -> Value.of(l.compareTo(r) <= 0);
                case ADD -> Value.of(Numbers.add(l, r));
                case SUBTRACT -> Value.of(Numbers.subtract(l, r));
                case MULTIPLY -> Value.of(Numbers.multiply(l, r));
                case DIVIDE -> Value.of(Numbers.divide(l, nonZero(r, b)));
                case MODULO -> Value.of(r.signum() == 0 ? l : Numbers.modulo(l, r)); // x % 0 is x in HCL
                default -> throw new IllegalStateException("unhandled operator " + op);
            };
        } catch (ArithmeticException e) {
            throw error("Invalid arithmetic", "The result is out of range: " + e.getMessage() + ".", b.range());
        }
    }

    private static BigDecimal nonZero(BigDecimal r, Expression.Binary b) {
        if (r.signum() == 0) {
            throw error("Division by zero",
                    "The right operand of \"" + b.operator().symbol() + "\" must not be zero.", b.right().range());
        }
        return r;
    }

    private static BigDecimal number(Value v, Range at, String which) {
        BigDecimal n = Convert.toNumber(v);
        if (n == null) {
            throw error("Invalid operand", "Unsuitable value for " + which + ": a number is required"
                    + (v.isNull() ? ", but the value is null." : ", but the value is of type " + v.typeName() + "."),
                    at);
        }
        return n;
    }

    private static boolean bool(Value v, Range at, String which) {
        Boolean b = Convert.toBool(v);
        if (b == null) {
            throw error("Invalid operand", "Unsuitable value for " + which + ": a bool is required"
                    + (v.isNull() ? ", but the value is null." : ", but the value is of type " + v.typeName() + "."),
                    at);
        }
        return b;
    }

    private static boolean conditionTrue(Value cond, Range at) {
        if (cond.isNull()) {
            throw error("Null condition", "The condition value is null. Conditions must either be true or false.",
                    at);
        }
        Boolean b = Convert.toBool(cond);
        if (b == null) {
            throw error("Incorrect condition type", "The condition expression must be of type bool, not "
                    + cond.typeName() + ".", at);
        }
        return b;
    }

    // ---- templates ----------------------------------------------------------------------------------------------

    private Value template(Expression.Template t, Scope scope) {
        List<TemplatePart> parts = t.parts();
        if (parts.size() == 1 && parts.get(0) instanceof TemplatePart.Interpolation only) {
            // Unwrapping: "${x}" is x itself, not its string form. A deferred x renders back as its source.
            Value v = eval(only.expression(), scope);
            return v.isKnown() || probing > 0 ? v : Value.of(only.source());
        }
        if (parts.size() == 1 && parts.get(0) instanceof TemplatePart.Literal only) {
            return Value.of(only.value()); // source text, not produced: nothing to charge
        }
        StringBuilder sb = new StringBuilder();
        try {
            render(parts, scope, sb);
        } catch (UnknownPart e) {
            return new UnknownValue(t.range());
        }
        return Value.of(sb.toString());
    }

    /** Ends a template's rendering while probing: the template is unknown. */
    private static final class UnknownPart extends RuntimeException {
        UnknownPart() {
            super(null, null, false, false);
        }
    }

    private void unknownPart() {
        if (probing > 0) {
            throw new UnknownPart();
        }
    }

    private void render(List<TemplatePart> parts, Scope scope, StringBuilder sb) {
        for (TemplatePart p : parts) {
            if (p instanceof TemplatePart.Literal l) {
                budget.chars(l.value().length(), l.range());
                sb.append(l.value());
            } else if (p instanceof TemplatePart.Interpolation i) {
                Value v = eval(i.expression(), scope);
                if (!v.isKnown()) {
                    unknownPart();
                    budget.chars(i.source().length(), i.range());
                    sb.append(i.source());
                    continue;
                }
                String s = Convert.toText(v);
                if (s == null) {
                    throw error("Invalid template interpolation value", v.isNull()
                            ? "The expression result is null. Cannot include a null value in a string template."
                            : "Cannot include the given value in a string template: string required, but the value "
                                    + "is of type " + v.typeName() + ".", i.expression().range());
                }
                budget.chars(s.length(), i.range());
                sb.append(s);
            } else if (p instanceof TemplatePart.If d) {
                Value cond = eval(d.condition(), scope);
                if (!cond.isKnown()) {
                    unknownPart();
                    budget.chars(d.source().length(), d.range());
                    sb.append(d.source());
                    continue;
                }
                render(conditionTrue(cond, d.condition().range()) ? d.then() : d.otherwise(), scope, sb);
            } else if (p instanceof TemplatePart.For d) {
                List<Value[]> pairs = iterate(eval(d.collection(), scope), d.collection().range());
                if (pairs == null) {
                    unknownPart();
                    budget.chars(d.source().length(), d.range());
                    sb.append(d.source());
                    continue;
                }
                for (Value[] kv : pairs) {
                    budget.step(d.range()); // a body of literals only evaluates nothing, yet nested loops multiply
                    render(d.body(), forScope(d.keyVar(), d.valueVar(), kv, scope), sb);
                }
            }
        }
    }

    /** HCL's implicit conversions between primitive types. */
    static final class Convert {

        private Convert() {
        }

        /** Number, or a string holding a number; else null. */
        static BigDecimal toNumber(Value v) {
            if (v instanceof NumberValue n) {
                return n.value();
            }
            if (v instanceof StringValue s) {
                return Numbers.parse(s.value());
            }
            return null;
        }

        /** Bool, or the string "true"/"false"; else null. */
        static Boolean toBool(Value v) {
            if (v instanceof BoolValue b) {
                return b.value();
            }
            if (v instanceof StringValue s) {
                return s.value().equals("true") ? Boolean.TRUE : s.value().equals("false") ? Boolean.FALSE : null;
            }
            return null;
        }

        /** String, number or bool as a string; else null. */
        static String toText(Value v) {
            if (v instanceof StringValue s) {
                return s.value();
            }
            if (v instanceof NumberValue || v instanceof BoolValue) {
                return v.toString();
            }
            return null;
        }

        /** HCL equality: same type and equal value, with no conversion ({@code "1" == 1} is false). */
        static boolean equal(Value a, Value b) {
            if (a instanceof NumberValue x && b instanceof NumberValue y) {
                return x.value().compareTo(y.value()) == 0;
            }
            return a.equals(b);
        }
    }
}
