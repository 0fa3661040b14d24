package io.caravan.jobspec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Hostile jobspecs (the probes of issue 21: a 73-byte {@code format} that kept a thread busy for good, strings and
 * lists doubled through locals, catastrophic regular expressions) fail fast with a 400-style problem that names the
 * limit and where it was hit.
 */
class LimitsTest {

    /** A jobspec whose job has {@code meta { a = <expr> }} on line {@code 2 + locals' lines}. */
    private static String meta(String locals, String expr) {
        return (locals.isEmpty() ? "" : "locals {\n" + locals + "}\n") + "job \"j\" {\n  meta {\n    a = " + expr
                + "\n  }\n}\n";
    }

    private static JsonNode parse(String hcl) {
        return JobspecParser.parse(hcl, "job.nomad", ParseOptions.defaults().withFileFunctions(false)).job();
    }

    /**
     * The problems of a jobspec that used to hang or exhaust memory, within 15 s: a bound that tells "bounded" from
     * "runs away", loose enough for a 2-core VM busy with other builds (the regular expression case took 5 s there).
     */
    private static String failure(String hcl) {
        return assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> assertThrows(JobspecException.class, () -> parse(hcl)).getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " ==> ", quoteCharacter = '\'', value = {
        "format(\"%10000000d\", 1) ==> format\" failed: the width 10000000 is above the limit of 1000000",
        "format(\"%99999999999999999s\", 1) ==> format\" failed: the width 99999999999999999 is above the limit",
        "format(\"%.100000000f\", 1) ==> format\" failed: the precision 100000000 is above the limit of 1000000",
        "format(\"%1000000s%1000000s%1000000s%1000000s%1000000s%1000000s%1000000s%1000000s%1000000s%1000000s"
                + "%1000000s%1000000s%1000000s%1000000s%1000000s%1000000s%1000000s\", 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                + "1, 1, 1, 1, 1, 1) ==> format\" failed: the result would be longer than the limit of 16 MiB",
        "tonumber(format(\"%1001s\", 1)) ==> tonumber\" failed: cannot convert a string of more than 1000 characters",
        "length(split(\"\", join(\"\", [for i in split(\"\", format(\"%1000s\", \"\")) : "
                + "format(\"%1000000s\", \"\")]))) ==> Result too large",
        "replace(\"" + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" + "\", \"/(?:(?:a|a?)+)+b/\", \"x\")"
                + " ==> replace\" failed: the regular expression takes too long on this text",
        "replace(format(\"%100000s\", \"\"), \"/( |x)*/\", \"y\") ==> replace\" failed: the regular expression is too "
                + "complex",
    })
    void explosiveFunctionCallsFailAtTheCall(String expr, String message) {
        String problems = failure(meta("", expr));
        assertTrue(problems.startsWith("job.nomad:3:"), problems);
        assertTrue(problems.contains(message), problems);
    }

    @Test
    void functionsStillWorkBelowTheLimits() {
        assertEquals(1_000_000, parse(meta("", "format(\"%1000000d\", 7)")).at("/Meta/a").asText().length());
        assertEquals("000042|   x|a-b-c|[\"a\",\"b\"]|6869|3",
                parse(meta("", "join(\"|\", [format(\"%06d\", 42), format(\"%4s\", \"x\"), join(\"-\", split(\",\", "
                        + "\"a,b,c\")), jsonencode([\"a\", \"b\"]), format(\"%x\", \"hi\"), length(jsondecode(\"[1,2,"
                        + "{}]\"))])")).at("/Meta/a").asText());
        assertEquals("a-b-c", parse(meta("", "replace(\"a b c\", \"/\\\\s+/\", \"-\")")).at("/Meta/a").asText());
        assertEquals("3", parse(meta("", "length(split(\"\", \"abc\"))")).at("/Meta/a").asText());
    }

    @Test
    void stringsDoubledThroughLocalsFailAtTheLimit() {
        StringBuilder locals = new StringBuilder("  s0 = \"0123456789abcdef\"\n");
        for (int i = 1; i <= 40; i++) {
            locals.append("  s").append(i).append(" = \"${local.s").append(i - 1).append("}${local.s").append(i - 1)
                    .append("}\"\n");
        }
        String problems = failure(meta(locals.toString(), "local.s40"));
        // s20 (line 22) would be 16 Mi characters: the budget is for the whole jobspec, so it runs out there.
        assertTrue(problems.startsWith("job.nomad:22:10: Result too large; Evaluating this would produce more than the "
                + "limit of 16 MiB of text."), problems);
    }

    @Test
    void listsDoubledThroughLocalsFailAtTheLimit() {
        StringBuilder concat = new StringBuilder("  s0 = [1, 2]\n");
        StringBuilder nested = new StringBuilder("  s0 = \"x\"\n");
        for (int i = 1; i <= 40; i++) {
            concat.append("  s").append(i).append(" = concat(local.s").append(i - 1).append(", local.s")
                    .append(i - 1).append(")\n");
            nested.append("  s").append(i).append(" = [local.s").append(i - 1).append(", local.s").append(i - 1)
                    .append("]\n");
        }
        assertTrue(failure(meta(concat.toString(), "length(local.s40)")).contains("Result too large"));
        // Little memory (each level holds the previous one twice) but 2^40 elements once written out.
        String problems = failure(meta(nested.toString(), "jsonencode(local.s40)"));
        assertTrue(problems.contains("Result too large; This value would have more than the limit of 1000000 list or "
                + "object elements when written out in full"), problems);
    }

    @Test
    void aLargeLocalReferencedManyTimesCountsEachTime() {
        StringBuilder hcl = new StringBuilder("locals {\n  big = format(\"%1000000s\", \"\")\n}\n");
        hcl.append("job \"j\" {\n  meta {\n");
        for (int i = 0; i < 20; i++) {
            hcl.append("    a").append(i).append(" = local.big\n");
        }
        String problems = failure(hcl.append("  }\n}\n").toString());
        // 16 references fit in 16 MiB; the 17th (a16, line 22) does not, nor do those after it.
        assertTrue(problems.startsWith("job.nomad:22:11: Result too large; Evaluating this would produce more than the "
                + "limit of 16 MiB of text."), problems);
    }

    @Test
    void loopsFailAtTheLimit() {
        String thousand = "  t = split(\"\", format(\"%1000s\", \"\"))\n";
        String problems = failure(meta(thousand, "length([for a in local.t : [for b in local.t : [for c in local.t : "
                + "1]]])"));
        assertTrue(problems.startsWith("job.nomad:6:56: Result too large; Evaluating this would produce more than the "
                + "limit of 1000000 list or object elements."), problems); // the innermost for
        problems = failure(meta(thousand, "\"%{for a in local.t}%{for b in local.t}%{for c in local.t}%{endfor}"
                + "%{endfor}%{endfor}\""));
        assertTrue(problems.startsWith("job.nomad:6:"), problems);
        assertTrue(problems.contains("Evaluation too complex; Evaluating this would take more than the limit of "
                + "2000000 steps"), problems);
    }

    @Test
    void deepValuesFromAChainOfLocalsAreRefused() {
        StringBuilder locals = new StringBuilder();
        for (int i = 0; i < 300; i++) {
            locals.append("  l").append(i).append(" = [local.l").append(i + 1).append("]\n");
        }
        locals.append("  l300 = 1\n");
        String problems = failure(meta(locals.toString(), "jsonencode(local.l0)"));
        // l43 = [local.l44] would be 257 levels deep: that comes first, before the locals waiting for it.
        assertTrue(problems.startsWith("job.nomad:45:9: Value too deeply nested; Lists and objects may be nested at "
                + "most 256 levels deep.\njob.nomad:2:15: Unsupported attribute; This object does not have an attribute "
                + "named \"l1\"."), problems);
        String json = failure(meta("", "jsondecode(\"" + "[".repeat(300) + "]".repeat(300) + "\")"));
        assertTrue(json.contains("JSON nested more than 256 levels deep"), json);
    }

    @Test
    void deepExpressionsAreAProblemNotAStackOverflow() {
        for (String expr : new String[] {"1" + "+1".repeat(100_000), "var" + ".a".repeat(100_000),
                "(".repeat(100_000) + "1" + ")".repeat(100_000), "\"${".repeat(10_000) + "1" + "}\"".repeat(10_000)}) {
            String problems = failure(meta("", expr));
            assertTrue(problems.startsWith("job.nomad:3:"), problems);
            assertTrue(problems.contains("Nesting too deep"), problems);
        }
    }

    @Test
    void aMillionBrokenLinesGetAHundredProblems() {
        String problems = failure("job \"j\" {\n" + "= \n".repeat(300_000) + "}\n");
        assertEquals(101, problems.lines().count());
        assertTrue(problems.endsWith("job.nomad:102:1: Too many errors; only the first 100 are reported"), problems);
        StringBuilder attrs = new StringBuilder("job \"j\" {\n  meta {\n");
        for (int i = 0; i < 1000; i++) {
            attrs.append("    a").append(i).append(" = 1 + \"x\"\n");
        }
        assertEquals(101, failure(attrs.append("  }\n}\n").toString()).lines().count());
    }

    @Test
    void aHeredocOf10MbParses() {
        StringBuilder hcl = new StringBuilder("job \"j\" {\n  meta {\n    a = <<-EOT\n");
        String line = "      a line of a large heredoc, indented by six spaces ${\"and interpolated\"}\n";
        int lines = 10_000_000 / line.length() + 1;
        hcl.append(line.repeat(lines)).append("    EOT\n  }\n}\n");
        JsonNode job = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> parse(hcl.toString()));
        String value = job.at("/Meta/a").asText();
        assertEquals("a line of a large heredoc, indented by six spaces and interpolated\n".repeat(lines), value);
    }
}
