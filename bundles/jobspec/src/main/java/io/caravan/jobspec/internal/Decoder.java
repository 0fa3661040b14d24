package io.caravan.jobspec.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.GoDuration;
import io.caravan.hcl.Attribute;
import io.caravan.hcl.Block;
import io.caravan.hcl.Body;
import io.caravan.hcl.BodyItem;
import io.caravan.hcl.Budget;
import io.caravan.hcl.Diagnostic;
import io.caravan.hcl.EvalContext;
import io.caravan.hcl.Expression;
import io.caravan.hcl.HclException;
import io.caravan.hcl.HclFile;
import io.caravan.hcl.Range;
import io.caravan.hcl.Value;
import io.caravan.jobspec.internal.Schema.Card;
import io.caravan.jobspec.internal.Schema.Free;
import io.caravan.jobspec.internal.Schema.Kind;
import io.caravan.jobspec.internal.Schema.Nested;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Walks a block body against its {@link Schema}, evaluating attributes and building the JSON. Problems are collected,
 * not thrown, so one run reports all of them (HCL's own habit). {@code dynamic} blocks are expanded on the way.
 */
final class Decoder {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final HclFile file;
    private final List<Diagnostic> problems;
    /**
     * What goes into the job, counted in full: a large local referenced by many attributes is written out once per
     * reference. Apart from the evaluation's budget, so a large value is not counted twice (made, then written).
     */
    private final Budget output = new Budget();

    Decoder(HclFile file, List<Diagnostic> problems) {
        this.file = file;
        this.problems = problems;
    }

    /** {@code job "<id>" { ... }} → the Job object: ID and Name from the label (a {@code name} attribute wins). */
    ObjectNode decodeJob(Block job, EvalContext ctx) {
        ObjectNode out = JSON.objectNode();
        if (job.labels().size() != 1) {
            labelProblem("job", 1, job.labels().size(), job.typeRange(), job.labelRanges());
        }
        String id = job.labels().isEmpty() ? "" : job.labels().get(0);
        out.put("ID", id);
        out.put("Name", id);
        return decode(job.body(), ctx, JobSchema.JOB, out);
    }

    /**
     * A block or an attribute of a body, after expanding {@code dynamic} blocks; {@code ctx} carries a dynamic
     * block's iterator variable.
     */
    private record Item(String type, Attribute attr, List<String> labels, List<Range> labelRanges, Body body,
                        EvalContext ctx, Range typeRange) {
    }

    private List<Item> expand(Body body, EvalContext ctx) {
        List<Item> items = new ArrayList<>();
        for (BodyItem bi : body.items()) {
            if (bi instanceof Attribute a) {
                items.add(new Item(a.name(), a, List.of(), List.of(), null, ctx, a.nameRange()));
            } else if (bi instanceof Block b && b.type().equals("dynamic")) {
                expandDynamic(b, ctx, items);
            } else if (bi instanceof Block b) {
                items.add(new Item(b.type(), null, b.labels(), b.labelRanges(), b.body(), ctx, b.typeRange()));
            }
        }
        return items;
    }

    /**
     * {@code dynamic "port" { for_each = ..., iterator = p, labels = [...], content { ... } }}: one {@code port}
     * block per element, with {@code p.key} and {@code p.value} (iterator defaults to the block type) in scope.
     */
    private void expandDynamic(Block dyn, EvalContext ctx, List<Item> items) {
        if (dyn.labels().size() != 1) {
            labelProblem("dynamic", 1, dyn.labels().size(), dyn.typeRange(), dyn.labelRanges());
            return;
        }
        String type = dyn.labels().get(0);
        String iterator = type;
        Expression forEach = null;
        Expression labels = null;
        List<Block> contents = new ArrayList<>();
        for (BodyItem bi : dyn.body().items()) {
            if (bi instanceof Attribute a && a.name().equals("for_each")) {
                forEach = a.expression();
            } else if (bi instanceof Attribute a && a.name().equals("labels")) {
                labels = a.expression();
            } else if (bi instanceof Attribute a && a.name().equals("iterator")
                    && a.expression() instanceof Expression.Variable v) {
                iterator = v.name();
            } else if (bi instanceof Block b && b.type().equals("content")) {
                contents.add(b);
            } else {
                unsupported(bi, "dynamic");
            }
        }
        if (forEach == null || contents.size() != 1) {
            error("Invalid dynamic block", "A dynamic block needs a for_each argument and exactly one content block.",
                    dyn.typeRange());
            return;
        }
        Value collection = eval(forEach, ctx);
        Map<String, Value> elements = new java.util.LinkedHashMap<>();
        if (collection instanceof Value.ListValue l) {
            for (int i = 0; i < l.elements().size(); i++) {
                elements.put(Integer.toString(i), l.elements().get(i));
            }
        } else if (collection instanceof Value.ObjectValue o) {
            elements.putAll(o.attributes());
        } else if (collection != null && !collection.isNull()) {
            error("Invalid dynamic for_each value", "Cannot use a " + collection.typeName() + " value in for_each.",
                    forEach.range());
            return;
        }
        boolean listKeys = collection instanceof Value.ListValue;
        for (Map.Entry<String, Value> e : elements.entrySet()) {
            Value key = listKeys ? Value.of(Long.parseLong(e.getKey())) : Value.of(e.getKey());
            EvalContext inner = ctx.withVariable(iterator, Value.object(Map.of("key", key, "value", e.getValue())));
            List<String> labelValues = new ArrayList<>();
            if (labels != null) {
                JsonNode ls = convert(eval(labels, inner), Kind.STRINGS, "labels", labels.range());
                if (ls == null) {
                    continue;
                }
                ls.forEach(n -> labelValues.add(n.asText()));
            }
            List<Range> labelRanges = labelValues.stream().map(l -> dyn.typeRange()).toList();
            items.add(new Item(type, null, labelValues, labelRanges, contents.get(0).body(), inner,
                    dyn.typeRange()));
        }
    }

    private ObjectNode decode(Body body, EvalContext ctx, Schema schema, ObjectNode out) {
        Map<String, Range> seen = new HashMap<>();
        for (Item item : expand(body, ctx)) {
            if (item.attr() != null) {
                decodeAttribute(item.attr(), item.ctx(), schema, out);
                continue;
            }
            Nested nested = schema.blocks.get(item.type());
            Free free = schema.free.get(item.type());
            if (nested != null) {
                decodeNested(item, nested, out, seen);
            } else if (free != null) {
                ObjectNode map = freeBody(item.body(), item.ctx(), free.kind());
                if (item.labels().size() > 0) {
                    labelProblem(item.type(), 0, item.labels().size(), item.typeRange(), item.labelRanges());
                }
                Range prior = seen.putIfAbsent(item.type(), item.typeRange());
                if (prior != null || out.has(free.json())) {
                    error("Duplicate " + item.type() + " block", "Only one " + item.type() + " block is allowed"
                            + (prior != null ? "; another was defined at " + prior : "") + ".", item.typeRange());
                } else {
                    out.set(free.json(), map);
                }
            } else {
                error("Unsupported block type", "Blocks of type \"" + item.type() + "\" are not expected here."
                        + suggest(item.type(), schema.blocks.keySet(), schema.free.keySet()), item.typeRange());
            }
        }
        for (String name : schema.required) {
            if (body.attribute(name).isEmpty()) {
                error("Missing required argument", "The argument \"" + name + "\" is required, but no definition "
                        + "was found.", body.range());
            }
        }
        schema.check.apply(out, (attribute, summary, detail) -> error(summary, detail,
                body.attribute(attribute).map(a -> a.expression().range()).orElse(body.range())));
        schema.post.accept(out);
        return out;
    }

    private void decodeAttribute(Attribute attr, EvalContext ctx, Schema schema, ObjectNode out) {
        Schema.Attr spec = schema.attrs.get(attr.name());
        Free free = schema.free.get(attr.name());
        if (spec == null && free == null) {
            error("Unsupported argument", "An argument named \"" + attr.name() + "\" is not expected here."
                    + suggest(attr.name(), schema.attrs.keySet(), schema.free.keySet()), attr.nameRange());
            return;
        }
        Value v = eval(attr.expression(), ctx);
        if (v == null) {
            return;
        }
        JsonNode json = spec != null
                ? convert(v, spec.kind(), attr.name(), attr.expression().range())
                : convertFree(v, free.kind(), attr.name(), attr.expression().range());
        if (json != null) {
            out.set(spec != null ? spec.json() : free.json(), json);
        }
    }

    private void decodeNested(Item item, Nested nested, ObjectNode out, Map<String, Range> seen) {
        int wanted = nested.labelKey() != null || nested.card() == Card.MAP ? 1 : 0;
        if (item.labels().size() != wanted) {
            labelProblem(item.type(), wanted, item.labels().size(), item.typeRange(), item.labelRanges());
            return;
        }
        ObjectNode obj = JSON.objectNode();
        String label = wanted == 1 ? item.labels().get(0) : null;
        if (nested.allowedLabels() != null) { // task scaling: Nomad's names and messages
            Range at = item.labelRanges().get(0);
            label = label.toLowerCase(java.util.Locale.ROOT);
            if (!nested.allowedLabels().contains(label)) {
                error("Invalid " + item.type() + " policy name", item.type() + " policy name must be one of "
                        + new java.util.TreeSet<>(nested.allowedLabels()), at);
                return;
            }
            Range prior = seen.putIfAbsent(item.type() + " " + label, item.typeRange());
            if (prior != null) {
                error("Duplicate " + item.type() + " \"" + label + "\" block", "Only one " + item.type() + " "
                        + label + " block is allowed. Another was defined at " + prior + ".", item.typeRange());
                return;
            }
        }
        if (nested.labelKey() != null) {
            obj.put(nested.labelKey(), nested.labelPrefix() + label);
        }
        decode(item.body(), item.ctx(), nested.schema(), obj);
        switch (nested.card()) {
            case ONE -> {
                Range prior = seen.putIfAbsent(item.type(), item.typeRange());
                if (prior != null) {
                    error("Duplicate " + item.type() + " block", "Only one " + item.type()
                            + " block is allowed. Another was defined at " + prior + ".", item.typeRange());
                } else {
                    out.set(nested.json(), obj);
                }
            }
            case LIST -> {
                String key = nested.router() != null ? nested.router().apply(obj) : nested.json();
                array(out, key).add(obj);
            }
            case MAP -> {
                ObjectNode map = out.get(nested.json()) instanceof ObjectNode m ? m : out.putObject(nested.json());
                if (map.has(label)) {
                    error("Duplicate " + item.type() + " block", "A " + item.type() + " named \"" + label
                            + "\" was already defined.", item.labelRanges().get(0));
                } else {
                    map.set(label, obj);
                }
            }
            default -> throw new IllegalStateException();
        }
    }

    private static ArrayNode array(ObjectNode out, String key) {
        return out.get(key) instanceof ArrayNode a ? a : out.putArray(key);
    }

    /**
     * A free-form block: attributes as written; for {@code config} ({@link Kind#ANY}) nested blocks too, each
     * appended to a list under its type and nested one level per label ({@code b "x" { k = 1 }} →
     * {@code "b": [{"x": [{"k": 1}]}]}), which is how HCL1 decoded them, what Nomad's HCL2 parser reproduces
     * ({@code jobspec2/hclutil/blockattrs.go}) and what the drivers expect.
     */
    private ObjectNode freeBody(Body body, EvalContext ctx, Kind kind) {
        ObjectNode out = JSON.objectNode();
        for (Item item : expand(body, ctx)) {
            if (item.attr() != null) {
                Value v = eval(item.attr().expression(), item.ctx());
                if (v == null) {
                    continue;
                }
                JsonNode json = switch (kind) {
                    case STRING_MAP -> convert(v, Kind.STRING, item.type(), item.attr().expression().range());
                    case STRINGS_MAP -> convert(v, Kind.STRINGS, item.type(), item.attr().expression().range());
                    default -> item.attr().expression() instanceof Expression.ObjectCons
                            // HCL1 compatibility, as Nomad's BlocksAsAttrs does: an attribute written as an object
                            // literal ({@code port_map = { http = 80 }}) is a list of one map, like a block.
                            ? JSON.arrayNode().add(toJson(v))
                            : toJson(v);
                };
                if (json != null) {
                    out.set(item.type(), json);
                }
            } else if (kind == Kind.ANY) {
                ObjectNode inner = freeBody(item.body(), item.ctx(), kind);
                for (int i = item.labels().size() - 1; i >= 0; i--) {
                    ObjectNode wrap = JSON.objectNode();
                    wrap.putArray(item.labels().get(i)).add(inner);
                    inner = wrap;
                }
                array(out, item.type()).add(inner);
            } else {
                error("Unsupported block type", "Blocks of type \"" + item.type()
                        + "\" are not expected here; this block holds only attributes.", item.typeRange());
            }
        }
        return out;
    }

    private JsonNode convertFree(Value v, Kind kind, String name, Range range) {
        if (!(v instanceof Value.ObjectValue o)) {
            return typeError(name, "an object is required", range);
        }
        if (kind == Kind.ANY) {
            return toJson(v);
        }
        ObjectNode out = JSON.objectNode();
        for (Map.Entry<String, Value> e : o.attributes().entrySet()) {
            JsonNode j = convert(e.getValue(), kind == Kind.STRINGS_MAP ? Kind.STRINGS : Kind.STRING,
                    name + "." + e.getKey(), range);
            if (j != null) {
                out.set(e.getKey(), j);
            }
        }
        return out;
    }

    /** HCL's conversion of {@code v} to the attribute's type; null (after reporting) when impossible. */
    JsonNode convert(Value v, Kind kind, String name, Range range) {
        if (v.isNull()) {
            return null; // null means "not set" in HCL
        }
        if (v instanceof Value.UnknownValue u && kind != Kind.STRING && kind != Kind.ANY) {
            return typeError(name, "a value known before the job runs is required, not " + source(u), range);
        }
        switch (kind) {
            case STRING -> {
                if (v instanceof Value.UnknownValue u) {
                    return JSON.textNode(source(u));
                }
                if (v instanceof Value.StringValue || v instanceof Value.NumberValue || v instanceof Value.BoolValue) {
                    return JSON.textNode(v instanceof Value.StringValue s ? s.value() : v.toString());
                }
                return typeError(name, "string required", range);
            }
            case INT, FLOAT -> {
                BigDecimal n = number(v);
                if (n == null) {
                    return typeError(name, "a number is required", range);
                }
                if (kind == Kind.FLOAT) {
                    return JSON.numberNode(n.doubleValue());
                }
                try {
                    return JSON.numberNode(n.longValueExact());
                } catch (ArithmeticException e) {
                    return typeError(name, "a whole number is required", range);
                }
            }
            case BOOL -> {
                if (v instanceof Value.BoolValue b) {
                    return JSON.booleanNode(b.value());
                }
                if (v instanceof Value.StringValue s && (s.value().equals("true") || s.value().equals("false"))) {
                    return JSON.booleanNode(Boolean.parseBoolean(s.value()));
                }
                return typeError(name, "bool required", range);
            }
            case DURATION -> {
                if (v instanceof Value.StringValue s) {
                    try {
                        return JSON.numberNode(GoDuration.parse(s.value()).toNanos());
                    } catch (IllegalArgumentException e) { // Nomad's decodeDuration wording
                        error("Unsuitable value type", "Unsuitable duration value: time: " + e.getMessage(), range);
                        return null;
                    }
                }
                if (v instanceof Value.NumberValue n) { // a bare number is nanoseconds, as in the JSON form
                    try {
                        return JSON.numberNode(n.value().longValueExact());
                    } catch (ArithmeticException e) {
                        return typeError(name, "a duration is required", range);
                    }
                }
                error("Unsuitable value type", "Unsuitable value: expected a string but found " + v.typeName(), range);
                return null;
            }
            case STRINGS -> {
                if (!(v instanceof Value.ListValue l)) {
                    return typeError(name, "list of string required", range);
                }
                ArrayNode out = JSON.arrayNode();
                for (Value e : l.elements()) {
                    JsonNode s = e.isNull() ? null : convert(e, Kind.STRING, name, range);
                    if (s == null) {
                        return null;
                    }
                    out.add(s);
                }
                return out;
            }
            case STRING_MAP, STRINGS_MAP -> {
                return convertFree(v, kind, name, range);
            }
            default -> {
                return toJson(v);
            }
        }
    }

    private static BigDecimal number(Value v) {
        if (v instanceof Value.NumberValue n) {
            return n.value();
        }
        if (v instanceof Value.StringValue s && s.value().length() <= Budget.MAX_NUMBER_LENGTH) {
            try {
                return new BigDecimal(s.value().trim());
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }

    /** Go's JSON form of any value: whole numbers as integers, others as float64. */
    JsonNode toJson(Value v) {
        if (v instanceof Value.StringValue s) {
            return JSON.textNode(s.value());
        } else if (v instanceof Value.NumberValue n) {
            BigDecimal d = n.value();
            if (d.signum() == 0 || d.stripTrailingZeros().scale() <= 0) {
                try {
                    return JSON.numberNode(d.longValueExact());
                } catch (ArithmeticException e) {
                    return JSON.numberNode(d.toBigIntegerExact());
                }
            }
            return JSON.numberNode(d.doubleValue());
        } else if (v instanceof Value.BoolValue b) {
            return JSON.booleanNode(b.value());
        } else if (v instanceof Value.ListValue l) {
            ArrayNode out = JSON.arrayNode();
            l.elements().forEach(e -> out.add(toJson(e)));
            return out;
        } else if (v instanceof Value.ObjectValue o) {
            ObjectNode out = JSON.objectNode();
            o.attributes().forEach((k, e) -> out.set(k, toJson(e)));
            return out;
        } else if (v instanceof Value.UnknownValue u) {
            return JSON.textNode(source(u));
        }
        return JSON.nullNode();
    }

    /** A deferred reference written bare ({@code attr.kernel.name}) is kept as the interpolation Nomad expects. */
    private String source(Value.UnknownValue u) {
        String text = file.filename().equals(u.range().filename()) ? file.text(u.range()) : "?";
        return text.startsWith("\"") || text.startsWith("${") ? text : "${" + text + "}";
    }

    Value eval(Expression e, EvalContext ctx) {
        try {
            Value v = e.evaluate(ctx);
            output.charge(v, e.range());
            return v;
        } catch (HclException ex) {
            problems.addAll(ex.diagnostics());
            return null;
        }
    }

    private void unsupported(BodyItem bi, String where) {
        if (bi instanceof Attribute a) {
            error("Unsupported argument", "An argument named \"" + a.name() + "\" is not expected in " + where
                    + ".", a.nameRange());
        } else if (bi instanceof Block b) {
            error("Unsupported block type", "Blocks of type \"" + b.type() + "\" are not expected in " + where
                    + ".", b.typeRange());
        }
    }

    /** HCL's hint: the first known name within edit distance 2 ({@code nterval} → {@code interval}). */
    @SafeVarargs
    private static String suggest(String name, java.util.Collection<String>... known) {
        for (java.util.Collection<String> names : known) {
            for (String candidate : names) {
                if (!candidate.startsWith("\u0000") && distance(name, candidate) < 3) {
                    return " Did you mean \"" + candidate + "\"?";
                }
            }
        }
        return "";
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    private JsonNode typeError(String name, String what, Range range) {
        error("Incorrect attribute value type", "Inappropriate value for attribute \"" + name + "\": " + what + ".",
                range);
        return null;
    }

    private void labelProblem(String type, int wanted, int got, Range typeRange, List<Range> labelRanges) {
        if (got < wanted) {
            error("Missing name for " + type, "All " + type + " blocks must have " + wanted + " label(s).",
                    typeRange);
        } else {
            error("Extraneous label for " + type, "No more labels are expected at this point.",
                    labelRanges.size() > wanted ? labelRanges.get(wanted) : typeRange);
        }
    }

    void error(String summary, String detail, Range range) {
        problems.add(Diagnostic.error(summary, detail, range));
    }
}
