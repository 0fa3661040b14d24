package io.caravan.hcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Broken input must produce diagnostics, never an exception (the parser recovers; depth is bounded). */
class RobustnessTest {

    @Test
    void mutatedRealFilesNeverCrash() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Stream.concat(Files.walk(NomadFilesTest.corpusDir()), Files.walk(SpecSuiteTest.suiteDir()))) {
            files = s.filter(p -> p.toString().endsWith(".hcl")).sorted().toList();
        }
        Random random = new Random(7);
        String alphabet = "{}[]()\"$%~<>-=:,.?*!&|#/\n\\ aE0";
        EvalContext ctx = EvalContext.empty().deferringUnknownVariables();
        for (Path f : files) {
            String src = Files.readString(f, StandardCharsets.UTF_8);
            for (int k = 0; k < 40; k++) {
                StringBuilder sb = new StringBuilder(src);
                int at = random.nextInt(sb.length() + 1);
                switch (random.nextInt(3)) {
                    case 0 -> sb.insert(at, alphabet.charAt(random.nextInt(alphabet.length())));
                    case 1 -> sb.delete(at, Math.min(sb.length(), at + 1));
                    default -> sb.setLength(at);
                }
                HclParser.Result r = HclParser.tryParse(sb.toString(), "m.hcl");
                for (Attribute a : attributes(r.file().body())) {
                    try {
                        a.evaluate(ctx);
                    } catch (HclException e) {
                        assertTrue(e.getMessage().startsWith("m.hcl:"), e.getMessage());
                    }
                }
            }
        }
    }

    private static List<Attribute> attributes(Body body) {
        List<Attribute> out = new ArrayList<>(body.attributes());
        body.blocks().forEach(b -> out.addAll(attributes(b.body())));
        return out;
    }

    @Test
    void deepNestingIsADiagnostic() {
        for (String src : List.of("a = " + "[".repeat(100_000), "a = " + "-".repeat(100_000) + "1",
                "a = \"" + "${\"".repeat(10_000), "a = \"" + "%{ if true }".repeat(10_000) + "\"")) {
            HclParser.Result r = HclParser.tryParse(src, "d.hcl");
            assertEquals("Nesting too deep", r.diagnostics().get(0).summary());
        }
        HclParser.Result ok = HclParser.tryParse("a = " + "(".repeat(120) + "1" + ")".repeat(120), "d.hcl");
        assertEquals(List.of(), ok.diagnostics());
    }
}
