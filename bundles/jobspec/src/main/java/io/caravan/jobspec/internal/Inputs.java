package io.caravan.jobspec.internal;

import io.caravan.hcl.Attribute;
import io.caravan.hcl.Block;
import io.caravan.hcl.BodyItem;
import io.caravan.hcl.Diagnostic;
import io.caravan.hcl.EvalContext;
import io.caravan.hcl.Expression;
import io.caravan.hcl.HclException;
import io.caravan.hcl.HclFile;
import io.caravan.hcl.HclParser;
import io.caravan.hcl.Position;
import io.caravan.hcl.Range;
import io.caravan.hcl.Value;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Input variables and locals, as in Nomad's jobspec2: a variable's value is, by increasing precedence, its
 * {@code default}, the var-files in order, then {@code -var}; locals may refer to variables and to each other in
 * any order. Produces the {@code var} and {@code local} objects of the evaluation context.
 */
final class Inputs {

    /** Minimal HCL type constraint: {@code any string number bool list(T) set(T) map(T) object(...) tuple(...)}. */
    private record Type(String kind, Type element) {
        static final Type ANY = new Type("any", null);

        @Override
        public String toString() {
            return element == null ? kind : kind + "(" + element + ")";
        }
    }

    private record Declared(Block block, Type type, Value value) {
    }

    private final List<Diagnostic> problems;

    Inputs(List<Diagnostic> problems) {
        this.problems = problems;
    }

    /**
     * Adds {@code var} and {@code local} to {@code base} (which holds the functions). Problems are added to the
     * shared list; unresolved names are simply left out so that later references report them too.
     */
    EvalContext resolve(HclFile file, EvalContext base, Map<String, String> env, Map<String, String> cliVars,
                        List<Path> varFiles) {
        // Defaults, var-files and -var values are constants: functions yes, references no (not even deferred).
        EvalContext constants = EvalContext.empty().withFunctions(base.functions());
        Map<String, Declared> declared = new LinkedHashMap<>();
        List<Block> localsBlocks = new ArrayList<>();
        for (Block b : file.body().blocks()) {
            switch (b.type()) {
                case "variable" -> declareVariable(b, constants, declared);
                case "variables" -> { // Nomad also accepts variables { a = "default" }
                    for (Attribute a : b.body().attributes()) {
                        Value v = eval(a.expression(), constants);
                        declared.put(a.name(), new Declared(b, Type.ANY, v));
                    }
                }
                case "locals" -> localsBlocks.add(b);
                default -> { }
            }
        }
        // NOMAD_VAR_<name> from the environment: lowest precedence, undeclared names ignored (as Nomad does).
        new TreeMap<>(env).forEach((key, text) -> {
            String name = key.startsWith("NOMAD_VAR_") ? key.substring("NOMAD_VAR_".length()) : null;
            if (name != null && declared.containsKey(name)) {
                setFromText(declared, name, text, "<value for var." + name + " from environment>", constants);
            }
        });
        for (Path varFile : varFiles) {
            applyVarFile(varFile, constants, declared);
        }
        cliVars.forEach((name, text) -> {
            if (!declared.containsKey(name)) {
                problems.add(Diagnostic.error("Undefined -var variable",
                        "A \"" + name + "\" variable was passed in the command line but was not found in known "
                                + "variables. To declare variable \"" + name + "\", place this block in your jobspec: "
                                + "variable \"" + name + "\" {}", new Range("<-var " + name + ">", Position.START,
                                Position.START)));
                return;
            }
            setFromText(declared, name, text, "<value for var." + name + " from arguments>", constants);
        });
        Map<String, Value> vars = new TreeMap<>();
        declared.forEach((name, d) -> {
            if (d.value() == null) {
                problems.add(Diagnostic.error("Unset variable \"" + name + "\"", "A used variable must be set or "
                        + "have a default value; see https://developer.hashicorp.com/nomad/docs/job-specification/hcl2/"
                        + "variables for details.", d.block().typeRange()));
            } else {
                vars.put(name, d.value());
            }
        });
        EvalContext ctx = base.withVariable("var", Value.object(vars));
        validate(declared, ctx);
        return resolveLocals(localsBlocks, ctx);
    }

    /**
     * A value given as text (-var, environment): a string as is for primitive types (converted like HCL does),
     * otherwise an HCL expression ({@code -var 'dcs=["dc1"]'}).
     */
    private void setFromText(Map<String, Declared> declared, String name, String text, String source,
                             EvalContext base) {
        Declared d = declared.get(name);
        Range where = new Range(source, Position.START, Position.START);
        Value raw;
        if (List.of("string", "number", "bool", "any").contains(d.type().kind())) {
            raw = Value.of(text);
        } else {
            try {
                raw = HclParser.parseExpression(text, source).evaluate(base);
            } catch (HclException e) {
                problems.addAll(e.diagnostics());
                return;
            }
        }
        set(declared, name, raw, where);
    }

    private void declareVariable(Block b, EvalContext base, Map<String, Declared> declared) {
        if (b.labels().size() != 1) {
            problems.add(Diagnostic.error("Missing name for variable", "All variable blocks must have 1 label.",
                    b.typeRange()));
            return;
        }
        String name = b.labels().get(0);
        if (declared.containsKey(name)) {
            problems.add(Diagnostic.error("Duplicate variable", "Duplicate " + name + " variable definition found.",
                    b.labelRanges().get(0)));
            return;
        }
        Type type = Type.ANY;
        Value def = null;
        for (BodyItem item : b.body().items()) {
            if (item instanceof Attribute a) {
                switch (a.name()) {
                    case "type" -> type = type(a.expression());
                    case "default" -> { // a failed default is already reported: do not also call it unset
                        Value v = eval(a.expression(), base);
                        def = v == null ? Value.NULL : v;
                    }
                    case "description", "sensitive", "nullable" -> { }
                    default -> problems.add(Diagnostic.error("Unsupported argument", "An argument named \""
                            + a.name() + "\" is not expected here.", a.nameRange()));
                }
            } else if (item instanceof Block v && !v.type().equals("validation")) {
                problems.add(Diagnostic.error("Unsupported block type", "Blocks of type \"" + v.type()
                        + "\" are not expected here.", v.typeRange()));
            }
        }
        if (type == null) {
            return;
        }
        declared.put(name, new Declared(b, type, null));
        if (def != null) {
            set(declared, name, def, b.body().attribute("default").orElseThrow().expression().range());
        }
    }

    private void applyVarFile(Path path, EvalContext base, Map<String, Declared> declared) {
        HclFile vf;
        try {
            vf = HclParser.parse(Files.readString(path, StandardCharsets.UTF_8), path.toString());
        } catch (IOException e) {
            problems.add(Diagnostic.error("Failed to read var-file", e.toString(),
                    new Range(path.toString(), Position.START, Position.START)));
            return;
        } catch (HclException e) {
            problems.addAll(e.diagnostics());
            return;
        }
        for (BodyItem item : vf.body().items()) {
            if (item instanceof Block b) {
                problems.add(Diagnostic.error("Unexpected block", "A var-file holds only name = value.",
                        b.typeRange()));
            } else if (item instanceof Attribute a) {
                if (!declared.containsKey(a.name())) {
                    problems.add(Diagnostic.error("Undefined variable", "A \"" + a.name()
                            + "\" variable was assigned a value but was not declared in the jobspec.", a.nameRange()));
                    continue;
                }
                Value v = eval(a.expression(), base);
                if (v != null) {
                    set(declared, a.name(), v, a.expression().range());
                }
            }
        }
    }

    private void set(Map<String, Declared> declared, String name, Value raw, Range where) {
        Declared d = declared.get(name);
        try {
            declared.put(name, new Declared(d.block(), d.type(), convert(raw, d.type())));
        } catch (IllegalArgumentException e) {
            problems.add(Diagnostic.error("Invalid value for variable", "The value for variable \"" + name
                    + "\" is not compatible with its type constraint " + d.type() + ": " + e.getMessage() + ".",
                    where));
        }
    }

    /** {@code validation { condition = ..., error_message = "..." }} blocks, checked once values are known. */
    private void validate(Map<String, Declared> declared, EvalContext ctx) {
        declared.forEach((name, d) -> {
            if (d.value() == null || d.block().type().equals("variables")) {
                return;
            }
            for (Block v : d.block().body().blocks("validation")) {
                Attribute cond = v.body().attribute("condition").orElse(null);
                if (cond == null) {
                    continue;
                }
                Value ok = eval(cond.expression(), ctx);
                if (ok instanceof Value.BoolValue b && !b.value()) {
                    String msg = v.body().attribute("error_message").map(a -> eval(a.expression(), ctx))
                            .filter(Value.StringValue.class::isInstance).map(s -> ((Value.StringValue) s).value())
                            .orElse("The value of variable \"" + name + "\" is invalid.");
                    problems.add(Diagnostic.error("Invalid value for variable", msg, cond.expression().range()));
                }
            }
        });
    }

    /**
     * Locals in dependency order without a graph: evaluate what can be evaluated, repeat while progress is made,
     * and report the last failures of those left (unknown names, cycles).
     */
    private EvalContext resolveLocals(List<Block> blocks, EvalContext ctx) {
        Map<String, Attribute> pending = new LinkedHashMap<>();
        for (Block b : blocks) {
            for (Attribute a : b.body().attributes()) {
                if (pending.put(a.name(), a) != null) {
                    problems.add(Diagnostic.error("Duplicate value in locals", "Duplicate " + a.name()
                            + " definition found.", a.nameRange()));
                }
            }
            for (Block nested : b.body().blocks()) {
                problems.add(Diagnostic.error("Unsupported block type", "Blocks of type \"" + nested.type()
                        + "\" are not expected here.", nested.typeRange()));
            }
        }
        Map<String, Value> locals = new TreeMap<>();
        Map<String, List<Diagnostic>> failures = new LinkedHashMap<>();
        boolean progress = true;
        while (!pending.isEmpty() && progress) {
            progress = false;
            failures.clear();
            EvalContext withLocals = ctx.withVariable("local", Value.object(locals));
            for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                try {
                    locals.put(e.getKey(), e.getValue().expression().evaluate(withLocals));
                    it.remove();
                    progress = true;
                } catch (HclException ex) {
                    failures.put(e.getKey(), ex.diagnostics());
                }
            }
        }
        // Causes first: a local that failed only because another unresolved one is missing comes last, so the cap
        // on reported problems does not hide what went wrong behind a chain of locals waiting for it.
        failures.values().stream()
                .sorted(Comparator.comparing((List<Diagnostic> ds) -> waitsForLocals(ds, pending.keySet())))
                .forEach(problems::addAll);
        return ctx.withVariable("local", Value.object(locals));
    }

    /** Whether every error of a local is the evaluator's for reading another local that did not resolve either. */
    private static boolean waitsForLocals(List<Diagnostic> failure, Set<String> unresolved) {
        String prefix = "This object does not have an attribute named \"";
        return failure.stream().allMatch(d -> d.summary().equals("Unsupported attribute")
                && d.detail().startsWith(prefix) && d.detail().endsWith("\".")
                && unresolved.contains(d.detail().substring(prefix.length(), d.detail().length() - 2)));
    }

    private Value eval(Expression e, EvalContext ctx) {
        try {
            return e.evaluate(ctx);
        } catch (HclException ex) {
            problems.addAll(ex.diagnostics());
            return null;
        }
    }

    private Type type(Expression e) {
        if (e instanceof Expression.Variable v && List.of("any", "string", "number", "bool").contains(v.name())) {
            return new Type(v.name(), null);
        }
        if (e instanceof Expression.Call c && List.of("list", "set", "map").contains(c.name())
                && c.args().size() == 1) {
            Type element = type(c.args().get(0));
            return element == null ? null : new Type(c.name(), element);
        }
        if (e instanceof Expression.Call c && List.of("object", "tuple").contains(c.name())) {
            return new Type(c.name(), null); // shape checked only at the top level
        }
        problems.add(Diagnostic.error("Invalid type specification", "A type constraint is string, number, bool, "
                + "any, list(T), set(T), map(T), object({...}) or tuple([...]).", e.range()));
        return null;
    }

    /** HCL's conversion of a value to a type constraint (the automatic string↔number↔bool conversions included). */
    private static Value convert(Value v, Type t) {
        if (v.isNull() || t.kind().equals("any") || !v.isKnown()) {
            return v;
        }
        switch (t.kind()) {
            case "string" -> {
                if (v instanceof Value.StringValue) {
                    return v;
                }
                if (v instanceof Value.NumberValue || v instanceof Value.BoolValue) {
                    return Value.of(v.toString());
                }
            }
            case "number" -> {
                if (v instanceof Value.NumberValue) {
                    return v;
                }
                if (v instanceof Value.StringValue s) {
                    try {
                        return Value.of(new BigDecimal(s.value().trim()));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("a number is required");
                    }
                }
            }
            case "bool" -> {
                if (v instanceof Value.BoolValue) {
                    return v;
                }
                if (v instanceof Value.StringValue s && (s.value().equals("true") || s.value().equals("false"))) {
                    return Value.of(Boolean.parseBoolean(s.value()));
                }
            }
            case "list", "set", "tuple" -> {
                if (v instanceof Value.ListValue l) {
                    if (t.element() == null) {
                        return v;
                    }
                    List<Value> out = new ArrayList<>();
                    for (Value e : l.elements()) {
                        out.add(convert(e, t.element()));
                    }
                    return Value.list(out);
                }
            }
            case "map", "object" -> {
                if (v instanceof Value.ObjectValue o) {
                    if (t.element() == null) {
                        return v;
                    }
                    Map<String, Value> out = new TreeMap<>();
                    o.attributes().forEach((k, e) -> out.put(k, convert(e, t.element())));
                    return Value.object(out);
                }
            }
            default -> { }
        }
        throw new IllegalArgumentException(t.kind() + " required, got " + v.typeName());
    }
}
