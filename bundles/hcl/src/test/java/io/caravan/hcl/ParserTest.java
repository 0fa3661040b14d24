package io.caravan.hcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ParserTest {

    /** A compact rendering of an expression's tree, to check structure (precedence, splats) in one line. */
    static String tree(Expression e) {
        if (e instanceof Expression.Literal l) {
            return l.value().toString();
        } else if (e instanceof Expression.Variable v) {
            return v.name();
        } else if (e instanceof Expression.GetAttr g) {
            return tree(g.object()) + "." + g.name();
        } else if (e instanceof Expression.Index i) {
            return tree(i.collection()) + "[" + tree(i.key()) + "]";
        } else if (e instanceof Expression.Splat s) {
            return "(splat" + (s.full() ? "[*] " : ".* ") + tree(s.source()) + " " + tree(s.each()) + ")";
        } else if (e instanceof Expression.SplatItem) {
            return "@";
        } else if (e instanceof Expression.Binary b) {
            return "(" + b.operator().symbol() + " " + tree(b.left()) + " " + tree(b.right()) + ")";
        } else if (e instanceof Expression.Unary u) {
            return "(" + u.operator().symbol() + tree(u.operand()) + ")";
        } else if (e instanceof Expression.Conditional c) {
            return "(? " + tree(c.condition()) + " " + tree(c.whenTrue()) + " " + tree(c.whenFalse()) + ")";
        } else if (e instanceof Expression.Parens p) {
            return "(" + tree(p.expression()) + ")";
        } else if (e instanceof Expression.Call c) {
            return c.name() + "(" + c.args().stream().map(ParserTest::tree).collect(Collectors.joining(", "))
                    + (c.expandFinal() ? "..." : "") + ")";
        } else if (e instanceof Expression.Tuple t) {
            return t.elements().stream().map(ParserTest::tree).collect(Collectors.joining(", ", "[", "]"));
        } else if (e instanceof Expression.ObjectCons o) {
            return o.items().stream().map(i -> tree(i.key()) + "=" + tree(i.value()))
                    .collect(Collectors.joining(", ", "{", "}"));
        } else if (e instanceof Expression.For f) {
            return "(for " + (f.keyVar() == null ? "" : f.keyVar() + ",") + f.valueVar() + " " + tree(f.collection())
                    + (f.isObject() ? " " + tree(f.keyResult()) + " =>" : "") + " " + tree(f.value())
                    + (f.grouped() ? "..." : "") + (f.condition() == null ? "" : " if " + tree(f.condition())) + ")";
        } else if (e instanceof Expression.Template t) {
            return "T" + t.parts().stream().map(p -> p instanceof TemplatePart.Literal l ? Value.of(l.value()).toString()
                    : p instanceof TemplatePart.Interpolation i ? "${" + tree(i.expression()) + "}" : p.toString())
                    .collect(Collectors.joining("", "<", ">"));
        }
        return e.toString();
    }

    private static String parse(String expr) {
        return tree(HclParser.parseExpression(expr, "t.hcl"));
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " ==> ", value = {
        "1 + 2 * 3 - 4 / 2 % 5 ==> (- (+ 1 (* 2 3)) (% (/ 4 2) 5))",
        "a || b && c == d ==> (|| a (&& b (== c d)))",
        "a == b != c ==> (!= (== a b) c)",
        "1 < 2 == true ==> (== (< 1 2) true)",
        "-a.b * 2 ==> (* (-a.b) 2)",
        "!a && !b ==> (&& (!a) (!b))",
        "a ? b : c ? d : e ==> (? a b (? c d e))",
        "x > 1 ? \"x\" : y ==> (? (> x 1) T<\"x\"> y)",
        "(1 + 2) * 3 ==> (* ((+ 1 2)) 3)",
        "a.b[0].c ==> a.b[0].c",
        "a.0.b ==> a[0].b",
        "a.*.b.c[0] ==> (splat.* a @.b.c)[0]",
        "a[*].b.c[0] ==> (splat[*] a @.b.c[0])",
        "a.* ==> (splat.* a @)",
        "f(1, [2, 3]...) ==> f(1, [2, 3]...)",
        "f(\\n1,\\n2,\\n) ==> f(1, 2)",
        "[for k, v in x : v if k > 0] ==> (for k,v x v if (> k 0))",
        "{for v in x : v.k => v...} ==> (for v x v.k => v...)",
        "{a = 1, \"b\" = 2, (c) = 3} ==> {a=1, T<\"b\">=2, (c)=3}",
        "{a: 1\\nb: 2} ==> {a=1, b=2}",
        "1e3 ==> 1000",
        "1.5e-2 ==> 0.015",
        "-1 ==> (-1)",
    })
    void expressionStructure(String source, String expected) {
        assertEquals(expected, parse(source.replace("\\n", "\n")));
    }

    @Test
    void rangesAreExactAndSourceIsRecoverable() {
        String src = "name = \"Ж\" # comment\njob \"web\" {\n  count = 1 + var.n\n}\n";
        HclFile f = HclParser.parse(src, "job.hcl");
        Attribute name = f.body().attribute("name").orElseThrow();
        assertEquals(new Range("job.hcl", new Position(1, 1, 0), new Position(1, 5, 4)), name.nameRange());
        // Ж is two UTF-8 bytes but one column.
        assertEquals(new Position(1, 11, 11), name.expression().range().end());
        Block job = f.body().blocks("job").get(0);
        assertEquals(List.of("web"), job.labels());
        assertEquals(new Position(2, 5, 26), job.labelRanges().get(0).start());
        Attribute count = job.body().attribute("count").orElseThrow();
        assertEquals("job.hcl:3:3", count.nameRange().toString());
        assertEquals("1 + var.n", f.text(count.expression().range()));
        assertEquals("job \"web\" {\n  count = 1 + var.n\n}", f.text(job.range()));
        assertEquals(List.of("var"), count.expression().variables().stream().map(Expression.Variable::name).toList());
    }

    @Test
    void bodiesBlocksAndComments() {
        String src = "# hash\n// slash\n/* block\n comment */ a = 1\r\nb \"x\" y {\n  c { d = 2 }\n  e {}\n}\n"
                + "f { g = [\n 1, # inside\n 2,\n] }";
        HclFile f = HclParser.parse(src, "t.hcl");
        assertEquals(List.of("a"), f.body().attributes().stream().map(Attribute::name).toList());
        Block b = f.body().blocks("b").get(0);
        assertEquals(List.of("x", "y"), b.labels());
        assertEquals(1, b.body().blocks("c").get(0).body().attributes().size());
        assertTrue(b.body().blocks("e").get(0).body().items().isEmpty());
        assertEquals(Value.list(Value.of(1), Value.of(2)),
                f.body().blocks("f").get(0).body().attribute("g").orElseThrow().evaluate(EvalContext.empty()));
    }

    @Test
    void heredocLiteralsAreKeptPerSyntax() {
        HclFile f = HclParser.parse("a = <<EOT\n  x \\n $${y}\n  EOT\nb = 1\n", "t.hcl");
        // No backslash escapes in heredocs; $${ is still the literal ${.
        assertEquals(Value.of("  x \\n ${y}\n"), f.body().attribute("a").orElseThrow().evaluate(EvalContext.empty()));
        assertTrue(f.body().attribute("b").isPresent());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // source | expected diagnostics, joined with " / "
        "a = 1 b = 2                | t.hcl:1:7: Missing newline after argument; An argument definition must end with a newline.",
        "a = 1\\na = 2               | t.hcl:2:1: Attribute redefined; The argument \"a\" was already set at t.hcl:1:1. Each argument may be set only once.",
        "a {                        | t.hcl:1:3: Unclosed configuration block; There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
        "a = \"abc\\nb = 1           | t.hcl:1:5: Unterminated template string; No closing marker was found for the string.",
        "a = 1 @ 2\\nb = ]\\nc = 3   | t.hcl:1:7: Invalid character; This character is not used within the language. / t.hcl:2:5: Invalid expression; Expected the start of an expression, but found an invalid expression token.",
        "a = \"\\q\"                | t.hcl:1:6: Invalid escape sequence; The symbol \"q\" is not a valid escape sequence selector.",
        "a = x.0.1                  | t.hcl:1:7: Invalid legacy index syntax; When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax instead, like [0].",
        "\"a\" = 1                  | t.hcl:1:1: Argument or block definition required; An argument or block definition is required here. Argument names must be identifiers, not quoted strings.",
        "a = <<EOT x                 | t.hcl:1:5: Invalid heredoc introducer; A heredoc marker must be followed immediately by a newline.",
        "a = <<EOT\\nx\\n            | t.hcl:1:5: Unterminated template string; No closing marker was found for the heredoc.",
        "a = \"${b\"                | t.hcl:1:9: Extra characters after interpolation expression; Expected a closing brace to end the interpolation expression, but found extra characters.",
        "a = \"%{ if b }x\"         | t.hcl:1:6: Unterminated template directive; No corresponding %{ endif } was found for this %{ if }.",
        "a = [1 2]                  | t.hcl:1:8: Missing item separator; Expected a comma to mark the beginning of the next item.",
        "a = {b = 1 c = 2}          | t.hcl:1:12: Missing attribute separator; Expected a newline or comma to mark the beginning of the next attribute.",
        "b \"${x}\" {}              | t.hcl:1:4: Invalid string literal; Template sequences are not allowed in this string. To include a literal \"$\", double it (as \"$$\") to escape it.",
    })
    void errorsAreLocatedAndCollected(String source, String expected) {
        HclParser.Result r = HclParser.tryParse(source.replace("\\n", "\n"), "t.hcl");
        assertEquals(expected, r.diagnostics().stream().map(Diagnostic::toString).collect(Collectors.joining(" / ")));
    }

    @Test
    void parseThrowsAllErrorsAsOneException() {
        HclException e = assertThrows(HclException.class, () -> HclParser.parse("a = \nb = 1\nc = )\n", "x.hcl"));
        assertEquals(2, e.diagnostics().size());
        assertEquals("x.hcl:1:5: Invalid expression; Expected the start of an expression, but found an invalid "
                + "expression token.\nx.hcl:3:5: Invalid expression; Expected the start of an expression, but found "
                + "an invalid expression token.", e.getMessage());
    }

    @Test
    void hcl1NamesOnlyWhenAskedFor() {
        String src = "\"quoted\" = 1\nclient {\n  driver.allowlist = \"docker\"\n  \"meta\" { a = 1 }\n}\n";
        assertTrue(HclParser.tryParse(src, "t.hcl").hasErrors());
        HclFile f = HclParser.parse(src, "t.hcl", HclParser.Options.HCL1_NAMES);
        assertTrue(f.body().attribute("quoted").isPresent());
        Block client = f.body().blocks("client").get(0);
        Attribute dotted = client.body().attribute("driver.allowlist").orElseThrow();
        assertEquals("driver.allowlist", f.text(dotted.nameRange()));
        assertEquals(1, client.body().blocks("meta").size());
    }

    @Test
    void standaloneTemplate() {
        Expression.Template t = HclParser.parseTemplate("Hello \"${name}\"!\n%{ for x in xs }- ${x}\n%{ endfor }",
                "tpl");
        Value v = t.evaluate(EvalContext.empty().withVariable("name", Value.of("Ann"))
                .withVariable("xs", Value.list(Value.of("a"), Value.of("b"))));
        assertEquals(Value.of("Hello \"Ann\"!\n- a\n- b\n"), v);
        assertInstanceOf(TemplatePart.For.class, t.parts().get(t.parts().size() - 1));
    }
}
