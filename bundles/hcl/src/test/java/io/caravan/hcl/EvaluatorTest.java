package io.caravan.hcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EvaluatorTest {

    private static final EvalContext CTX = EvalContext.empty()
            .withVariable("s", Value.of("str"))
            .withVariable("n", Value.of(3))
            .withVariable("items", Value.list(Value.object(Map.of("id", Value.of(1), "tags", Value.list(Value.of("a")))),
                    Value.object(Map.of("id", Value.of(2), "tags", Value.list(Value.of("b"), Value.of("c"))))))
            .withVariable("obj", Value.object(Map.of("b", Value.of(2), "a", Value.of(1))))
            .withVariable("nothing", Value.NULL)
            .withVariable("space_bar", Value.of("  Bar"))
            .withFunction("upper", args -> Value.of(((Value.StringValue) args.get(0)).value().toUpperCase()))
            .withFunction("sum", args -> Value.of(args.stream()
                    .map(a -> ((Value.NumberValue) a).value()).reduce(BigDecimal.ZERO, BigDecimal::add)))
            .withFunction("fail", args -> {
                throw new IllegalArgumentException("always fails");
            });

    private static Value eval(String expr) {
        return HclParser.parseExpression(expr.replace("⏎", "\n"), "e.hcl").evaluate(CTX);
    }

    /** Each case: an expression (⏎ for a newline) ==> the HCL rendering of its value ({@link Value#toString()}). */
    @ParameterizedTest
    @CsvSource(delimiterString = " ==> ", value = {
        // numbers: arbitrary precision, HCL formatting, cty's 512-bit rounding
        "1e3 ==> 1000",
        "1.5E+2 ==> 150",
        "2 + 3.5 ==> 5.5",
        "1 / 10 ==> 0.1",
        "0.1 + 0.2 == 0.3 ==> true",
        "11 % 5 ==> 1",
        "-11 % 5 ==> -1",
        "2 - 3.5 ==> -1.5",
        "9007199254740993 + 0 ==> 9007199254740993",
        "\"x${1e3}\" ==> \"x1000\"",
        // precedence and logic
        "1 + 2 * 3 ==> 7",
        "(1 + 2) * 3 ==> 9",
        "10 - 4 - 3 ==> 3",
        "8 / 4 / 2 ==> 1",
        "!true || true ==> true",
        "-n * 2 ==> -6",
        "1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 4 ==> false",
        "nothing != null && nothing.x ==> false",
        "true || missing ==> true",
        "true && 1 ==> ERROR e.hcl:1:9: Invalid operand; Unsuitable value for right operand: a bool is required, but the value is of type number.",
        // conversions: operands convert, equality does not
        "\"5\" + 1 ==> 6",
        "\"1\" == 1 ==> false",
        "\"true\" && true ==> true",
        "\"x${true}\" ==> \"xtrue\"",
        "[1, \"a\"] == [1, \"a\"] ==> true",
        "{a = 1} == {a = 1.0} ==> true",
        // collections, traversals, splats
        "[1, 2, 3][1] ==> 2",
        "[1, 2, 3][\"2\"] ==> 3",
        "obj.a + obj[\"b\"] ==> 3",
        "items.0.id ==> 1",
        "items.*.id ==> [1, 2]",
        "items[*].id ==> [1, 2]",
        "items[*].tags[0] ==> [\"a\", \"b\"]",
        "items.*.tags[0] ==> [\"a\"]",
        "obj.*.a ==> [1]",
        "nothing.* ==> []",
        "{(s) = 1, s = 2, \"k\" = 3, true = 4} ==> {\"k\" = 3, \"s\" = 2, \"str\" = 1, \"true\" = 4}",
        "{a = 1⏎b = 2} ==> {\"a\" = 1, \"b\" = 2}",
        // for expressions
        "[for v in [\"a\", \"b\"]: v] ==> [\"a\", \"b\"]",
        "[for i, v in [\"a\", \"b\"]: i] ==> [0, 1]",
        "{for i, v in [\"a\", \"b\"]: v => i} ==> {\"a\" = 0, \"b\" = 1}",
        "{for i, v in [\"a\", \"a\", \"b\"]: v => i...} ==> {\"a\" = [0, 1], \"b\" = [2]}",
        "[for i, v in [\"a\", \"b\", \"c\"]: v if i < 2] ==> [\"a\", \"b\"]",
        "[for k, v in obj: \"${k}=${v}\"] ==> [\"a=1\", \"b=2\"]",
        "{for it in items: it.id => length...} ==> ERROR e.hcl:1:28: Unknown variable; There is no variable named \"length\".",
        // functions
        "upper(s) ==> \"STR\"",
        "sum(1, [2, 3]...) ==> 6",
        "sum([1, 2]...) ==> 3",
        // conditionals only evaluate the chosen branch
        "true ? 1 : nothing.x ==> 1",
        "n > 2 ? \"big\" : \"small\" ==> \"big\"",
        "true ? 1 : \"a\" ==> \"1\"",
        "false ? \"a\" : true ==> \"true\"",
        "true ? 1 : 2 ==> 1",
        // templates: unwrapping, escapes, strip markers, directives
        "\"${true}\" ==> true",
        "\"${\"${true}\"}\" ==> true",
        "\"${\"\"}${true}\" ==> \"true\"",
        "\"hello ${true}\" ==> \"hello true\"",
        "\"%{ for v in [true] }${v}%{ endfor }\" ==> \"true\"",
        "\"hello ${~ \"world\" }\" ==> \"helloworld\"",
        "\"%{ if true ~} hello %{~ endif }\" ==> \"hello\"",
        "\"${\"hello\" ~}${\" world\"}\" ==> \"hello world\"",
        "\"a %{ if n > 5 }big%{ else }small%{ endif }\" ==> \"a small\"",
        "\"%{ for i, v in [\"x\", \"y\"] ~}\\n${i}:${v},\\n%{~ endfor }\" ==> \"0:x,1:y,\"",
        "\"\\u00e9\\U0001F600\\t\\\"\\\\ $${x} %%{y}\" ==> \"é\uD83D\uDE00\\t\\\"\\\\ $${x} %%{y}\"",
        "\"n\\u0303\" == \"\\u00f1\" ==> true",
        // errors: summary, detail and the range of the culprit
        "missing + 1 ==> ERROR e.hcl:1:1: Unknown variable; There is no variable named \"missing\".",
        "nope(1) ==> ERROR e.hcl:1:1: Call to unknown function; There is no function named \"nope\".",
        "fail() ==> ERROR e.hcl:1:1: Error in function call; Call to function \"fail\" failed: always fails.",
        "1 + \"a\" ==> ERROR e.hcl:1:5: Invalid operand; Unsuitable value for right operand: a number is required, but the value is of type string.",
        "obj.c ==> ERROR e.hcl:1:5: Unsupported attribute; This object does not have an attribute named \"c\".",
        "items[2] ==> ERROR e.hcl:1:7: Invalid index; The given key does not identify an element in this collection value: the collection has 2 element(s).",
        "nothing.x ==> ERROR e.hcl:1:9: Attempt to get attribute from null value; This value is null, so it does not have any attributes.",
        "\"${nothing}\" ==> null",
        "\"a${nothing}\" ==> ERROR e.hcl:1:5: Invalid template interpolation value; The expression result is null. Cannot include a null value in a string template.",
        "\"a${items}\" ==> ERROR e.hcl:1:5: Invalid template interpolation value; Cannot include the given value in a string template: string required, but the value is of type tuple.",
        "{for v in [1, 1]: v => v} ==> ERROR e.hcl:1:19: Duplicate object key; Two different items produced the key \"1\" in this 'for' expression. If duplicates are expected, use the ellipsis (...) after the value expression to enable grouping by key.",
        "n ? 1 : 2 ==> ERROR e.hcl:1:1: Incorrect condition type; The condition expression must be of type bool, not number.",
        "[for v in nothing: v] ==> ERROR e.hcl:1:11: Iteration over null value; A null value cannot be used as the collection in a 'for' expression.",
        "5 % 0 ==> 5",
        "5 / 0 ==> ERROR e.hcl:1:5: Division by zero; The right operand of \"/\" must not be zero.",
        "true ? [1] : [\"a\"] ==> [\"1\"]",
        "true ? {a = 1} : {b = \"x\"} ==> {\"a\" = \"1\"}",
        "true ? 1 : false ==> ERROR e.hcl:1:8: Inconsistent conditional result types; The true and false result expressions must have consistent types: one is of type number and cannot be converted to the type of the other.",
        "false ? [1] : [{}] ==> ERROR e.hcl:1:9: Inconsistent conditional result types; The true and false result expressions must have consistent types: one is of type tuple and cannot be converted to the type of the other.",
        "true ? 1 : (2 < \"x\") ==> ERROR e.hcl:1:8: Inconsistent conditional result types; The true and false result expressions must have consistent types: one is of type number and cannot be converted to the type of the other.",
        "[5 < 7 ? false : (true ? null : \"\")] ==> [\"false\"]",
        "true ? 1 : (true ? {} : 9) ==> 1",
        "true ? [[], \"\"] : [false ? [{a = 7}] : \"\"] ==> ERROR e.hcl:1:8: Inconsistent conditional result types; The true and false result expressions must have consistent types: one is of type tuple and cannot be converted to the type of the other.",
        "\"e\\u0301\" ==> \"\u00e9\"",
        "\" 1\" + 1 ==> ERROR e.hcl:1:1: Invalid operand; Unsuitable value for left operand: a number is required, but the value is of type string.",
        "\"1.\" + 1 ==> 2",
        "0.7 * 2e-9 ==> 0.0000000014",
    })
    void evaluates(String expr, String expected) {
        String actual;
        try {
            actual = eval(expr).toString();
        } catch (HclException e) {
            actual = "ERROR " + e.getMessage();
        }
        assertEquals(expected, actual);
    }

    @Test
    void specSuiteModuloNeedsBinaryRounding() {
        // cty computes 11 % 5.1 with 512-bit binary floats, so the result is not exactly 0.8.
        assertEquals("0.800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                + "00000000000000000000000000000000000000000000000000000000000024", eval("11 % 5.1").toString());
    }

    @Test
    void aPowerOfTwoIsWrittenAsADecimalThatReadsBackAsIt() {
        // 51 % 0.02 leaves exactly 2^-506. Its shortest decimal that reads back as it has 155 digits; Go's big.Float
        // writes 154, which read back as the next lower number (a deliberate difference, see package-info).
        BigDecimal powerOfTwo = BigDecimal.ONE.divide(new BigDecimal(BigInteger.TWO.pow(506)));
        BigDecimal written = ((Value.NumberValue) eval("51 % 2e-2")).value();
        assertEquals(155, written.precision());
        assertEquals(Value.of(true), eval("51 % 2e-2 == " + powerOfTwo));
        assertEquals(Value.of(true), eval("51 % 2e-2 == " + written));
        assertEquals(Value.of(false), eval("51 % 2e-2 == " + written.round(new MathContext(154))));
    }

    @Test
    void heredocs() {
        String src = "a = <<-EOT\n    Foo\n  ${space_bar}\n    Baz\n  EOT\n"
                + "b = <<EOT\n  keep\n    indent\nEOT\n"
                + "c = <<-EOT\n\tTab\n  Two\n\n  EOT\n"
                + "d = <<EOT\n%{ for x in [1, 2] ~}\n  ${x}\n%{ endfor ~}\nEOT\n";
        HclFile f = HclParser.parse(src, "h.hcl");
        // Indentation is measured on the literal text only; interpolated spaces do not count.
        assertEquals(Value.of("  Foo\n  Bar\n  Baz\n"), f.body().attribute("a").orElseThrow().evaluate(CTX));
        assertEquals(Value.of("  keep\n    indent\n"), f.body().attribute("b").orElseThrow().evaluate(CTX));
        // A tab is one character of indentation; blank lines don't count.
        assertEquals(Value.of("Tab\n Two\n\n"), f.body().attribute("c").orElseThrow().evaluate(CTX));
        // Strip markers act on the literal next to them, line by line in heredocs (Terraform's idiom).
        assertEquals(Value.of("  1\n  2\n"), f.body().attribute("d").orElseThrow().evaluate(CTX));
    }

    @Test
    void deferredVariablesRenderBackAsSource() {
        EvalContext nomad = CTX.deferring(n -> List.of("attr", "meta", "node", "env").contains(n)
                || n.startsWith("NOMAD_"));
        String src = "a = \"${attr.kernel.name}\"\n"
                + "b = \"http://${NOMAD_UPSTREAM_ADDR_db}/x?s=${s}\"\n"
                + "c = \"%{ if meta.tier == \"web\" }web%{ endif }-${upper(node.unique.id)}\"\n"
                + "d = node.class\n"
                + "e = [\"${NOMAD_PORT_http}\", n + 1]\n";
        HclFile f = HclParser.parse(src, "job.hcl");
        Body body = f.body();
        assertEquals(Value.of("${attr.kernel.name}"), body.attribute("a").orElseThrow().evaluate(nomad));
        assertEquals(Value.of("http://${NOMAD_UPSTREAM_ADDR_db}/x?s=str"), body.attribute("b").orElseThrow().evaluate(nomad));
        assertEquals(Value.of("%{ if meta.tier == \"web\" }web%{ endif }-${upper(node.unique.id)}"),
                body.attribute("c").orElseThrow().evaluate(nomad));
        Value d = body.attribute("d").orElseThrow().evaluate(nomad);
        assertInstanceOf(Value.UnknownValue.class, d);
        assertEquals("node.class", f.text(((Value.UnknownValue) d).range()));
        assertEquals(Value.list(Value.of("${NOMAD_PORT_http}"), Value.of(4)),
                body.attribute("e").orElseThrow().evaluate(nomad));
        // Not deferred: still an error.
        HclException e = assertThrows(HclException.class, () -> HclParser.parseExpression("\"${other}\"", "x")
                .evaluate(nomad));
        assertEquals("x:1:4: Unknown variable; There is no variable named \"other\".", e.getMessage());
    }

    @Test
    void valuesConvertToAndFromJava() {
        Value v = Value.fromJava(Map.of("b", List.of(1, "x", true), "a", 2.5));
        assertEquals("{\"a\" = 2.5, \"b\" = [1, \"x\", true]}", v.toString());
        assertEquals(Map.of("a", new BigDecimal("2.5"), "b", List.of(BigDecimal.ONE, "x", true)), v.toJava());
        assertEquals(Value.of(new BigDecimal("1.000")), Value.of(1));
    }
}
