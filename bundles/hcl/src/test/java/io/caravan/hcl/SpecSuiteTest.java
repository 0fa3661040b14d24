package io.caravan.hcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs HCL's own specification suite ({@code shared/conformance/hcl-specsuite/tests}): for each {@code X.t}, the
 * input {@code X.hcl} is parsed and decoded with the {@code X.hcldec} spec, and the result or the diagnostics (with
 * their exact ranges) are compared with what {@code X.t} expects. The suite's {@code .hcl.json} inputs (JSON
 * syntax) are not run: this bundle implements the native syntax only.
 */
class SpecSuiteTest {

    static Path suiteDir() {
        return Corpus.dir("hcl.specsuite.dir", "../../../shared/conformance/hcl-specsuite/tests");
    }

    @TestFactory
    Stream<DynamicTest> specSuite() throws IOException {
        Path dir = suiteDir();
        List<Path> cases = Corpus.files(dir, ".t");
        assertFalse(cases.isEmpty(), "no .t files under " + dir);
        return cases.stream().map(t -> DynamicTest.dynamicTest(dir.relativize(t).toString(), () -> run(t)));
    }

    private static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }

    private static void run(Path t) throws IOException {
        String base = t.toString().substring(0, t.toString().length() - 2);
        HclFile expectations = HclParser.parse(read(t), t.getFileName().toString());
        HclFile specFile = HclParser.parse(read(Path.of(base + ".hcldec")), base + ".hcldec");
        Path input = Path.of(base + ".hcl");
        assertTrue(Files.exists(input), "no native-syntax input " + input);

        EvalContext ctx = EvalContext.empty();
        Block spec = null;
        for (Block b : specFile.body().blocks()) {
            if (b.type().equals("variables")) {
                for (Attribute a : b.body().attributes()) {
                    ctx = ctx.withVariable(a.name(), a.evaluate(EvalContext.empty()));
                }
            } else {
                spec = b;
            }
        }
        assertTrue(spec != null, "no spec in " + base + ".hcldec");

        HclParser.Result parsed = HclParser.tryParse(read(input), input.getFileName().toString());
        List<Diagnostic> diagnostics = new ArrayList<>(parsed.diagnostics());
        Value result = null;
        if (!parsed.hasErrors()) {
            // As hcldec does, decoding only happens on a syntactically valid file.
            Hcldec decoder = new Hcldec(ctx);
            result = decoder.decode(spec, parsed.file().body());
            diagnostics.addAll(decoder.diagnostics);
        }

        Body expect = expectations.body();
        List<Block> expectedDiags = expect.blocks("diagnostics");
        if (!expectedDiags.isEmpty()) {
            List<String> want = new ArrayList<>();
            for (Block d : expectedDiags.get(0).body().blocks()) {
                want.add(d.type() + " " + pos(d, "from") + "-" + pos(d, "to"));
            }
            List<String> got = diagnostics.stream().map(d -> d.severity().name().toLowerCase() + " "
                    + pos(d.subject().start()) + "-" + pos(d.subject().end())).toList();
            assertEquals(want, got, "diagnostics: " + diagnostics);
            return;
        }
        assertTrue(diagnostics.isEmpty(), () -> "unexpected diagnostics: " + diagnostics);

        Hcldec.Type type = expect.attribute("result_type").map(a -> Hcldec.type(a.expression())).orElse(null);
        if (type != null) {
            assertTrue(Hcldec.conforms(result, type), "result " + result + " does not conform to " + type);
        }
        if (expect.attribute("result").isPresent()) {
            Value want = expect.attribute("result").get().evaluate(EvalContext.empty());
            if (type != null) {
                want = Hcldec.convert(want, type);
            }
            assertEquals(want, result);
        }
        for (Block traversals : expect.blocks("traversals")) {
            if (!traversals.body().items().isEmpty()) {
                fail("expected traversals are not supported by this runner: " + traversals.range());
            }
            List<String> refs = new ArrayList<>();
            for (Attribute a : allAttributes(parsed.file().body())) {
                a.expression().variables().forEach(v -> refs.add(v.name() + " at " + v.range()));
            }
            assertEquals(List.of(), refs, "variable references");
        }
    }

    private static List<Attribute> allAttributes(Body body) {
        List<Attribute> out = new ArrayList<>(body.attributes());
        body.blocks().forEach(b -> out.addAll(allAttributes(b.body())));
        return out;
    }

    private static String pos(Block diag, String which) {
        Map<String, Value> attrs = new TreeMap<>();
        for (Attribute a : diag.body().blocks(which).get(0).body().attributes()) {
            attrs.put(a.name(), a.evaluate(EvalContext.empty()));
        }
        return attrs.get("line") + ":" + attrs.get("column") + "@" + attrs.get("byte");
    }

    private static String pos(Position p) {
        return p.line() + ":" + p.column() + "@" + p.offset();
    }
}
