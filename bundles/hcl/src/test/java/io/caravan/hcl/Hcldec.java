package io.caravan.hcl;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A small interpreter for the {@code .hcldec} specification language of HCL's spec suite, as far as the suite uses
 * it: {@code literal}, {@code object}, {@code attr}, {@code block}, {@code block_list}, {@code block_map}, with
 * types {@code any string number bool}, {@code map(T) list(T) set(T) object({...}) tuple([...])}.
 */
final class Hcldec {

    /** An HCL type, as written in {@code type = ...} and {@code result_type = ...}. */
    sealed interface Type {
        record Prim(String name) implements Type {
        }

        record Coll(String kind, Type element) implements Type {
        }

        record Obj(Map<String, Type> attributes) implements Type {
        }

        record Tup(List<Type> elements) implements Type {
        }
    }

    private final EvalContext ctx;
    final List<Diagnostic> diagnostics = new ArrayList<>();

    Hcldec(EvalContext ctx) {
        this.ctx = ctx;
    }

    /** Decodes {@code body} with {@code spec}, first checking the body has nothing the spec doesn't expect. */
    Value decode(Block spec, Body body) {
        Set<String> attrs = new TreeSet<>();
        Set<String> blocks = new TreeSet<>();
        schema(spec, attrs, blocks);
        for (BodyItem item : body.items()) {
            if (item instanceof Attribute a && !attrs.contains(a.name())) {
                diagnostics.add(Diagnostic.error("Unsupported argument", "An argument named \"" + a.name()
                        + "\" is not expected here.", a.nameRange()));
            } else if (item instanceof Block b && !blocks.contains(b.type())) {
                diagnostics.add(Diagnostic.error("Unsupported block type", "Blocks of type \"" + b.type()
                        + "\" are not expected here.", b.typeRange()));
            }
        }
        return value(spec, body);
    }

    private static void schema(Block spec, Set<String> attrs, Set<String> blocks) {
        switch (spec.type()) {
            case "object" -> spec.body().blocks().forEach(child -> schema(child, attrs, blocks));
            case "attr" -> attrs.add(name(spec));
            case "block", "block_list", "block_set", "block_map" -> blocks.add(blockType(spec));
            case "literal" -> {
            }
            default -> throw new IllegalArgumentException("unsupported hcldec spec " + spec.type());
        }
    }

    private static String name(Block spec) {
        return spec.labels().isEmpty() ? stringAttr(spec, "name") : spec.labels().get(0);
    }

    private static String blockType(Block spec) {
        String t = stringAttr(spec, "block_type");
        return t != null ? t : spec.labels().get(0);
    }

    private static String stringAttr(Block spec, String name) {
        return spec.body().attribute(name)
                .map(a -> ((Value.StringValue) a.evaluate(EvalContext.empty())).value()).orElse(null);
    }

    private static boolean required(Block spec) {
        return spec.body().attribute("required").map(a -> a.evaluate(EvalContext.empty()).equals(Value.TRUE))
                .orElse(false);
    }

    private Value value(Block spec, Body body) {
        switch (spec.type()) {
            case "literal":
                return spec.body().attribute("value").orElseThrow().evaluate(EvalContext.empty());
            case "object": {
                Map<String, Value> out = new TreeMap<>();
                for (Block child : spec.body().blocks()) {
                    out.put(name(child), value(child, body));
                }
                return Value.object(out);
            }
            case "attr": {
                Attribute a = body.attribute(name(spec)).orElse(null);
                if (a == null) {
                    if (required(spec)) {
                        diagnostics.add(Diagnostic.error("Missing required argument", "The argument \"" + name(spec)
                                + "\" is required.", body.range()));
                    }
                    return Value.NULL;
                }
                try {
                    Value v = a.evaluate(ctx);
                    Type t = spec.body().attribute("type").map(x -> type(x.expression())).orElse(new Type.Prim("any"));
                    return convert(v, t);
                } catch (HclException e) {
                    diagnostics.addAll(e.diagnostics());
                    return Value.NULL;
                } catch (IllegalArgumentException e) {
                    diagnostics.add(Diagnostic.error("Incorrect attribute value type", e.getMessage(),
                            a.expression().range()));
                    return Value.NULL;
                }
            }
            case "block": {
                List<Block> found = body.blocks(blockType(spec));
                if (found.size() > 1) {
                    diagnostics.add(Diagnostic.error("Duplicate " + blockType(spec) + " block", "Only one block of "
                            + "this type is allowed.", found.get(1).typeRange()));
                }
                if (found.isEmpty()) {
                    if (required(spec)) {
                        diagnostics.add(Diagnostic.error("Missing " + blockType(spec) + " block", "A block of this "
                                + "type is required.", body.range()));
                    }
                    return Value.NULL;
                }
                return nested(spec, found.get(0), 0);
            }
            case "block_list", "block_set": {
                List<Value> out = new ArrayList<>();
                for (Block b : body.blocks(blockType(spec))) {
                    out.add(nested(spec, b, 0));
                }
                return Value.list(out);
            }
            case "block_map": {
                List<String> labelNames = new ArrayList<>();
                for (Expression e : ((Expression.Tuple) spec.body().attribute("labels").orElseThrow().expression())
                        .elements()) {
                    labelNames.add(((Value.StringValue) e.evaluate(EvalContext.empty())).value());
                }
                Map<String, Object> tree = new TreeMap<>();
                for (Block b : body.blocks(blockType(spec))) {
                    Value v = nested(spec, b, labelNames.size());
                    if (b.labels().size() != labelNames.size()) {
                        continue;
                    }
                    @SuppressWarnings("unchecked")
                    Map<String, Object> level = tree;
                    for (int i = 0; i < labelNames.size() - 1; i++) {
                        @SuppressWarnings("unchecked")
                        Map<String, Object> next = (Map<String, Object>) level.computeIfAbsent(b.labels().get(i),
                                k -> new TreeMap<String, Object>());
                        level = next;
                    }
                    if (level.put(b.labels().get(labelNames.size() - 1), v) != null) {
                        diagnostics.add(Diagnostic.error("Duplicate " + blockType(spec) + " block", "A block with "
                                + "these labels was already defined.", b.typeRange()));
                    }
                }
                return Value.fromJava(tree);
            }
            default:
                throw new IllegalArgumentException("unsupported hcldec spec " + spec.type());
        }
    }

    /** The value of one block of a block spec: its body decoded by the spec's nested spec. */
    private Value nested(Block spec, Block block, int labels) {
        if (block.labels().size() != labels) {
            diagnostics.add(Diagnostic.error(block.labels().size() > labels ? "Extraneous label" : "Missing label",
                    "Block \"" + block.type() + "\" must have " + labels + " label(s).", block.typeRange()));
        }
        List<Block> inner = spec.body().blocks();
        return inner.isEmpty() ? Value.object(Map.of()) : decode(inner.get(0), block.body());
    }

    // ---- types --------------------------------------------------------------------------------------------------

    static Type type(Expression e) {
        if (e instanceof Expression.Variable v) {
            return new Type.Prim(v.name());
        }
        if (e instanceof Expression.Call c && c.args().size() == 1) {
            Expression arg = c.args().get(0);
            switch (c.name()) {
                case "map", "list", "set":
                    return new Type.Coll(c.name(), type(arg));
                case "object": {
                    Map<String, Type> attrs = new LinkedHashMap<>();
                    for (Expression.ObjectCons.Item item : ((Expression.ObjectCons) arg).items()) {
                        String key = item.key() instanceof Expression.Variable v ? v.name()
                                : item.key() instanceof Expression.Literal l ? l.value().toString()
                                : ((Value.StringValue) item.key().evaluate(EvalContext.empty())).value();
                        attrs.put(key, type(item.value()));
                    }
                    return new Type.Obj(attrs);
                }
                case "tuple": {
                    List<Type> elements = new ArrayList<>();
                    for (Expression el : ((Expression.Tuple) arg).elements()) {
                        elements.add(type(el));
                    }
                    return new Type.Tup(elements);
                }
                default:
                    break;
            }
        }
        throw new IllegalArgumentException("unsupported type expression at " + e.range());
    }

    /** Converts as cty does for the types the suite uses; IllegalArgumentException if impossible. */
    static Value convert(Value v, Type t) {
        if (v.isNull()) {
            return v;
        }
        if (t instanceof Type.Prim p) {
            switch (p.name()) {
                case "any":
                    return v;
                case "string":
                    if (v instanceof Value.StringValue) {
                        return v;
                    }
                    if (v instanceof Value.NumberValue || v instanceof Value.BoolValue) {
                        return Value.of(v.toString());
                    }
                    break;
                case "number":
                    if (v instanceof Value.NumberValue) {
                        return v;
                    }
                    if (v instanceof Value.StringValue s) {
                        try {
                            return Value.of(new BigDecimal(s.value()));
                        } catch (NumberFormatException e) {
                            break;
                        }
                    }
                    break;
                case "bool":
                    if (v instanceof Value.BoolValue) {
                        return v;
                    }
                    if (v instanceof Value.StringValue s && (s.value().equals("true") || s.value().equals("false"))) {
                        return Value.of(s.value().equals("true"));
                    }
                    break;
                default:
                    throw new IllegalArgumentException("unknown type " + p.name());
            }
            throw new IllegalArgumentException(p.name() + " required, but have " + v.typeName());
        }
        if (t instanceof Type.Coll c) {
            if (c.kind().equals("map") && v instanceof Value.ObjectValue o) {
                Map<String, Value> out = new TreeMap<>();
                o.attributes().forEach((k, x) -> out.put(k, convert(x, c.element())));
                return Value.object(out);
            }
            if (!c.kind().equals("map") && v instanceof Value.ListValue l) {
                return Value.list(l.elements().stream().map(x -> convert(x, c.element())).toList());
            }
            throw new IllegalArgumentException(c.kind() + " required, but have " + v.typeName());
        }
        if (t instanceof Type.Obj ot && v instanceof Value.ObjectValue o) {
            Map<String, Value> out = new TreeMap<>();
            for (Map.Entry<String, Type> e : ot.attributes().entrySet()) {
                Value x = o.attributes().get(e.getKey());
                if (x == null) {
                    throw new IllegalArgumentException("attribute \"" + e.getKey() + "\" is required");
                }
                out.put(e.getKey(), convert(x, e.getValue()));
            }
            return Value.object(out);
        }
        if (t instanceof Type.Tup tt && v instanceof Value.ListValue l && l.elements().size() == tt.elements().size()) {
            List<Value> out = new ArrayList<>();
            for (int i = 0; i < tt.elements().size(); i++) {
                out.add(convert(l.elements().get(i), tt.elements().get(i)));
            }
            return Value.list(out);
        }
        throw new IllegalArgumentException("cannot convert " + v.typeName() + " to " + t);
    }

    /** Whether {@code v} is a value of type {@code t} (null is a value of every type). */
    static boolean conforms(Value v, Type t) {
        if (v.isNull() || t instanceof Type.Prim p && p.name().equals("any")) {
            return true;
        }
        if (t instanceof Type.Prim p) {
            return v.typeName().equals(p.name());
        }
        if (t instanceof Type.Coll c) {
            if (c.kind().equals("map")) {
                return v instanceof Value.ObjectValue o
                        && o.attributes().values().stream().allMatch(x -> conforms(x, c.element()));
            }
            return v instanceof Value.ListValue l && l.elements().stream().allMatch(x -> conforms(x, c.element()));
        }
        if (t instanceof Type.Obj ot) {
            return v instanceof Value.ObjectValue o && o.attributes().keySet().equals(ot.attributes().keySet())
                    && ot.attributes().entrySet().stream()
                            .allMatch(e -> conforms(o.attributes().get(e.getKey()), e.getValue()));
        }
        Type.Tup tt = (Type.Tup) t;
        if (!(v instanceof Value.ListValue l) || l.elements().size() != tt.elements().size()) {
            return false;
        }
        for (int i = 0; i < tt.elements().size(); i++) {
            if (!conforms(l.elements().get(i), tt.elements().get(i))) {
                return false;
            }
        }
        return true;
    }
}
