package io.caravan.hcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Hostile input (huge, deep, explosive) gets a diagnostic with a position, quickly, and never a StackOverflowError. */
class LimitsTest {

    /** distribution's bin/caravan runs the agent with -Xss512k: request threads have this much stack. */
    private static final long AGENT_STACK = 512 * 1024;
    private static final EvalContext CTX = EvalContext.empty()
            .withVariable("a", Value.object(Map.of("b", Value.list(Value.of(1)))))
            .withFunction("f", args -> args.get(0));

    /** Constructs that recurse, nested {@code n} deep. */
    private static final Map<String, IntFunction<String>> NESTED = new LinkedHashMap<>();

    static {
        NESTED.put("parentheses", n -> "(".repeat(n) + "1" + ")".repeat(n));
        NESTED.put("tuples", n -> "[".repeat(n) + "]".repeat(n));
        NESTED.put("objects", n -> "{a=".repeat(n) + "1" + "}".repeat(n));
        NESTED.put("interpolations", n -> "\"${".repeat(n) + "1" + "}\"".repeat(n));
        NESTED.put("calls", n -> "f(".repeat(n) + "1" + ")".repeat(n));
        NESTED.put("for expressions", n -> "[for x in ".repeat(n) + "[1] : x]".repeat(n));
        NESTED.put("conditionals", n -> "true ? ".repeat(n) + "1" + " : 2".repeat(n));
        NESTED.put("negations", n -> "-".repeat(n) + "1");
        NESTED.put("operator chains", n -> "1" + "+1".repeat(n));
        NESTED.put("logical chains", n -> "true" + "||true".repeat(n));
        NESTED.put("attribute chains", n -> "{b={}}" + ".b".repeat(n));
        NESTED.put("index chains", n -> "[[]]" + "[0]".repeat(n));
        NESTED.put("splat chains", n -> "[1]" + "[*]".repeat(n));
        NESTED.put("splat traversals", n -> "a[*]" + ".b".repeat(n));
    }

    /** Runs {@code task} on a thread with the agent's stack; returns its result or rethrows what it threw. */
    private static <T> T onAgentStack(Supplier<T> task) throws InterruptedException {
        AtomicReference<Object> out = new AtomicReference<>();
        Thread t = new Thread(null, () -> {
            try {
                out.set(task.get());
            } catch (Throwable e) {
                out.set(e);
            }
        }, "agent-stack", AGENT_STACK);
        t.start();
        t.join(60_000);
        assertFalse(t.isAlive(), "still running after 60 s");
        if (out.get() instanceof RuntimeException e) {
            throw e;
        } else if (out.get() instanceof Error e) {
            throw e;
        }
        @SuppressWarnings("unchecked")
        T result = (T) out.get();
        return result;
    }

    private static Value eval(String src) {
        return HclParser.parseExpression(src, "l.hcl").evaluate(CTX);
    }

    private static HclException evalError(String src, EvalContext ctx) {
        return assertThrows(HclException.class, () -> HclParser.parseExpression(src, "l.hcl").evaluate(ctx));
    }

    @Test
    void nestingJustBelowTheLimitWorksOnTheAgentStackEvenOnceCompiled() throws InterruptedException {
        for (var e : NESTED.entrySet()) {
            String src = e.getValue().apply(120);
            // Enough runs for the JIT to compile the parser: compiled frames are larger than interpreted ones.
            onAgentStack(() -> {
                for (int i = 0; i < 200; i++) {
                    Expression x = HclParser.parseExpression(src, "l.hcl");
                    x.variables();
                    try {
                        x.evaluate(CTX).toJava();
                    } catch (HclException ex) { // a.b.b.b... is nonsense, but evaluating it must not overflow
                        assertTrue(ex.getMessage().contains("Unsupported attribute")
                                || ex.getMessage().contains("Invalid index"), ex.getMessage());
                    }
                }
                return null;
            });
        }
        String blocks = "b {\n".repeat(120) + "}\n".repeat(120);
        assertFalse(onAgentStack(() -> HclParser.tryParse(blocks, "l.hcl")).hasErrors());
    }

    @Test
    void nestingPastTheLimitIsADiagnosticOnTheAgentStack() throws InterruptedException {
        for (var e : NESTED.entrySet()) {
            for (int n : List.of(129, 100_000)) {
                String src = e.getValue().apply(n);
                HclException ex = assertThrows(HclException.class,
                        () -> onAgentStack(() -> HclParser.parseExpression(src, "l.hcl")), e.getKey());
                assertEquals("Nesting too deep", ex.diagnostics().get(0).summary(), e.getKey());
                assertTrue(ex.getMessage().startsWith("l.hcl:1:"), ex.getMessage());
                assertTrue(ex.getMessage().contains("at most 128 levels"), ex.getMessage());
            }
        }
        String blocks = "b {\n".repeat(100_000) + "}\n".repeat(100_000);
        HclParser.Result r = onAgentStack(() -> HclParser.tryParse(blocks, "l.hcl"));
        assertEquals("Nesting too deep", r.diagnostics().get(0).summary());
        assertEquals(129, r.diagnostics().get(0).subject().start().line());
    }

    @Test
    void aFileOfErrorsGetsAHundredOfThem() {
        for (String src : List.of("=\n".repeat(300_000), "a = '".repeat(300_000), "'".repeat(1_000_000))) {
            List<Diagnostic> d = HclParser.tryParse(src, "l.hcl").diagnostics();
            assertEquals(101, d.size());
            assertEquals("Too many errors", d.get(100).summary());
            assertEquals("Only the first 100 errors are reported.", d.get(100).detail());
        }
    }

    @Test
    void aHeredocOf10MbParsesInLinearTime() {
        StringBuilder body = new StringBuilder();
        while (body.length() < 10_000_000) {
            body.append("    line of a large heredoc, with ${\"an interpolation\"} and %%{ an escape }\n");
        }
        String expected = body.toString().replace("%%{", "%{").replace("${\"an interpolation\"}", "an interpolation");
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            Value v = HclParser.parse("a = <<EOT\n" + body + "EOT\n", "l.hcl").body().attributes().get(0)
                    .evaluate(EvalContext.empty());
            assertEquals(expected, ((Value.StringValue) v).value());
            // <<- removes the common indentation (four spaces) of every line.
            Value flush = HclParser.parse("a = <<-EOT\n" + body + "EOT\n", "l.hcl").body().attributes().get(0)
                    .evaluate(EvalContext.empty());
            assertEquals(expected.replace("    line", "line"), ((Value.StringValue) flush).value());
        });
    }

    @Test
    void longNumbersAreRefusedQuickly() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            HclException literal = assertThrows(HclException.class,
                    () -> HclParser.parseExpression("1".repeat(1_000_000), "l.hcl"));
            assertEquals("l.hcl:1:1: Invalid number literal; The number is longer than the limit of 1000 characters.",
                    literal.getMessage());
            HclException legacyIndex = assertThrows(HclException.class,
                    () -> HclParser.parseExpression("a." + "1".repeat(1_000_000), "l.hcl"));
            assertEquals("Invalid number literal", legacyIndex.diagnostics().get(0).summary());
            HclException string = evalError("\"" + "1".repeat(1_000_000) + "\" + 1", CTX);
            assertEquals("Invalid operand", string.diagnostics().get(0).summary());
            HclException exponent = assertThrows(HclException.class,
                    () -> HclParser.parseExpression("1e99999", "l.hcl"));
            assertEquals("l.hcl:1:1: Invalid number literal; The number \"1e99999\" is out of range.",
                    exponent.getMessage());
        });
        assertEquals("1" + "0".repeat(999), eval("1e999").toString());
        assertEquals(1000, eval("1" + "0".repeat(999)).toString().length());
    }

    @Test
    void loopsAreBoundedByTheBudget() {
        EvalContext ctx = CTX.withVariable("x", Value.list(Collections.nCopies(1000, Value.of(1))));
        HclException text = fastError("\"%{for a in x}%{for b in x}%{for c in x}"
                + "0123456789abcdef0123456789abcdef%{endfor}%{endfor}%{endfor}\"", ctx);
        assertEquals("Result too large", text.diagnostics().get(0).summary());
        assertTrue(text.getMessage().contains("16 MiB"), text.getMessage());
        assertTrue(text.getMessage().startsWith("l.hcl:1:"), text.getMessage());
        HclException steps = fastError("\"%{for a in x}%{for b in x}%{for c in x}%{endfor}%{endfor}%{endfor}\"", ctx);
        assertEquals("Evaluation too complex", steps.diagnostics().get(0).summary());
        HclException elements = fastError("[for a in x : [for b in x : [for c in x : c]]]", ctx);
        assertEquals("Result too large", elements.diagnostics().get(0).summary());
        assertTrue(elements.getMessage().contains("1000000 list or object elements"), elements.getMessage());
        Value square = eval("\"%{for a in x}%{for b in x}y%{endfor}%{endfor}\"", ctx);
        assertEquals("y".repeat(1_000_000), ((Value.StringValue) square).value());
    }

    @Test
    void nestedFailingBranchesAreTypedOnce() {
        // Typing a conditional's failed branch used to evaluate its parts again at every level: 2^40 evaluations.
        String e = "{}.x";
        for (int i = 0; i < 40; i++) {
            e = "true ? {a = 1} : [" + e + ", (\"x\" ? [] : {})]";
        }
        HclException error = fastError(e, CTX);
        assertEquals("Inconsistent conditional result types", error.diagnostics().get(0).summary());
    }

    /** The error of an evaluation that used to run for minutes or exhaust memory, within 5 s (CI is slow). */
    private static HclException fastError(String src, EvalContext ctx) {
        return assertTimeoutPreemptively(Duration.ofSeconds(20), () -> evalError(src, ctx));
    }

    private static Value eval(String src, EvalContext ctx) {
        return HclParser.parseExpression(src, "l.hcl").evaluate(ctx);
    }

    @Test
    void sharedPartsCountOnceForEachTimeTheyAreHeld() {
        // Values share parts: [x, x] costs little memory but is twice x's size written out (in JSON, say).
        EvalContext ctx = CTX.withVariable("x", Value.list(Collections.nCopies(600_000, Value.of(1))))
                .withVariable("y", Value.list(Collections.nCopies(300_000, Value.of(1))));
        assertEquals(600_002, eval("[y, y]", ctx).size());
        HclException e = evalError("[x, x]", ctx);
        assertEquals("l.hcl:1:1: Result too large; This value would have more than the limit of 1000000 list or "
                + "object elements when written out in full (a part it holds more than once counts each time).",
                e.getMessage());
    }

    @Test
    void deepValuesAreRefused() {
        Value deep = Value.of(1);
        for (int i = 0; i < Value.MAX_DEPTH; i++) {
            deep = Value.list(deep);
        }
        EvalContext ctx = CTX.withVariable("deep", deep);
        assertEquals(Value.MAX_DEPTH, eval("deep", ctx).depth());
        HclException e = evalError("[deep]", ctx);
        assertEquals("l.hcl:1:1: Value too deeply nested; Lists and objects may be nested at most 256 levels deep.",
                e.getMessage());
        assertEquals("Value too deeply nested", evalError("{a = deep}", ctx).diagnostics().get(0).summary());
        // Whatever builds them, values cannot nest without bound.
        Value v = Value.of(1);
        for (int i = 0; i < 4 * Value.MAX_DEPTH; i++) {
            v = Value.list(v);
        }
        Value deepest = v;
        assertThrows(IllegalArgumentException.class, () -> Value.list(deepest));
    }

    @Test
    void aSharedBudgetBoundsSeveralEvaluations() {
        EvalContext ctx = CTX.withVariable("big", Value.of("x".repeat(10_000_000)));
        Expression e = HclParser.parseExpression("\"${big}!\"", "l.hcl");
        e.evaluate(ctx);
        e.evaluate(ctx); // a budget per evaluation
        EvalContext shared = ctx.withBudget(new Budget());
        assertEquals(10_000_001, ((Value.StringValue) e.evaluate(shared)).value().length());
        HclException ex = assertThrows(HclException.class, () -> e.evaluate(shared));
        assertEquals("l.hcl:1:2: Result too large; Evaluating this would produce more than the limit of 16 MiB of "
                + "text.", ex.getMessage());
        // Once exceeded, the budget stays exceeded.
        assertThrows(HclException.class, () -> HclParser.parseExpression("\"a${1}\"", "l.hcl").evaluate(shared));
    }
}
