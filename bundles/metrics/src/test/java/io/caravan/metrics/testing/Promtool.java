package io.caravan.metrics.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * {@code promtool check metrics} (Debian's {@code prometheus} package, installed by {@code .ci/run}) on an exposition.
 * The test is skipped, saying so, where promtool is not installed. A parse error fails; promtool's lint advice (one
 * line per metric: {@code <name> <advice>}) is accepted, since Nomad's own names draw it (counters without
 * {@code _total}, camelCase Raft names, {@code nomad.client.host.memory.total} as a gauge, {@code job_summary}), and
 * dashboards written for Nomad rely on those names.
 */
public final class Promtool {
    /** A lint line: a metric name, then advice. */
    private static final Pattern LINT = Pattern.compile("^[a-zA-Z_:][a-zA-Z0-9_:]* [a-z].*$");

    private Promtool() {
    }

    /** Skips the calling test when promtool is missing. */
    public static void assumeInstalled() {
        boolean found = false;
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            found |= !dir.isEmpty() && Files.isExecutable(Path.of(dir, "promtool"));
        }
        assumeTrue(found, "promtool is not installed (apt-get install prometheus; .ci/run does): the exposition is"
                + " not checked");
    }

    /** Checks {@code exposition}; fails the test on a parse error or a lint complaint Nomad's names do not explain. */
    public static void check(String exposition) throws IOException, InterruptedException {
        assumeInstalled();
        Path out = Files.createTempFile("promtool", ".out");
        try {
            Process p = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
            p.getOutputStream().write(exposition.getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().close();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "promtool did not finish");
            String report = Files.readString(out);
            // 0: clean; 3: lint advice only; 1: the text does not parse.
            assertTrue(p.exitValue() == 0 || p.exitValue() == 3, "promtool rejected the exposition (exit "
                    + p.exitValue() + "):\n" + report);
            for (String line : report.lines().filter(l -> !l.isBlank()).toList()) {
                assertTrue(LINT.matcher(line).matches() && !line.contains("error"), "promtool: " + line);
            }
            assertEquals(report.isBlank() ? 0 : 3, p.exitValue(), report);
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
