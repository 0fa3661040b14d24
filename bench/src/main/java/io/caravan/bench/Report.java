package io.caravan.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

import io.caravan.bench.StartupBench.ChildJvm;
import io.caravan.bench.StartupBench.Options;
import io.caravan.bench.StartupBench.Run;

/** Formats runs as a console table and as a dated Markdown section of RESULTS.md, with the machine they ran on. */
final class Report {
    /** The targets for a {@code -dev} agent. */
    static final long TARGET_READY_MS = 1500;
    static final long TARGET_RSS_MIB = 100;

    static final String HEADER_ROW = String.format("%4s %9s %13s %14s %14s %10s %12s %5s",
            "run", "ready_ms", "cpu@ready_ms", "rss@start+5s", "rss@ready+5s", "peak_rss", "shutdown_ms", "exit");

    private static final String FILE_HEADER = """
            # Caravan start-up benchmark results

            Produced by `io.caravan.bench.StartupBench` (a benchmark, not a test: `mvn verify` never runs it). Each
            run spawns `bin/caravan agent -dev -config <free ports>` from `distribution/assembly/target/caravan`,
            polls `GET /v1/agent/health` every 10 ms until it answers 200 (time to ready, measured from the spawn, so
            JVM start-up is included), reads the CPU time the agent had used by then (other load on the machine
            inflates the wall-clock time but hardly the CPU time), samples `VmRSS` from `/proc/<pid>/status` 5 s
            after the spawn and 5 s after ready (and `VmHWM`, the peak), then sends SIGTERM and times the exit. RSS
            is in MiB. New results are appended as dated sections; older sections stay for comparison.

            Run it (builds what is missing; arguments are optional):

                bench/run-startup.sh [runs] [--opts "extra JVM options"] [--label text] [--no-results]
                # or: mvn -q -f bench/pom.xml compile exec:java -Dexec.args="10"
                # or: java -cp bench/target/classes io.caravan.bench.StartupBench 10

            `--opts` goes into `CARAVAN_JAVA_OPTS` for the agent, to compare JVM flag variants. The harness also adds
            `-Djava.io.tmpdir=<run dir>` so the agent's OSGi cache and `-dev` data dir are always cleaned up.
            """;

    private Report() {
    }

    static String row(Run r) {
        return String.format("%4d %9s %13s %14s %14s %10s %12s %5s", r.n(), num(r.readyMs()), num(r.cpuReadyMs()),
                mib(r.rssStart5Kb()), mib(r.rssReady5Kb()), mib(r.peakRssKb()), num(r.shutdownMs()),
                r.exitCode() < 0 ? "-" : r.exitCode());
    }

    static String section(Options options, List<Run> runs, ChildJvm jvm, String loadBefore, String loadAfter) {
        StringBuilder s = new StringBuilder();
        String date = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
        long ok = runs.stream().filter(Run::ok).count();
        s.append("## ").append(date).append(" — ").append(options.label()).append("\n\n");
        s.append("- Runs: ").append(runs.size()).append(", exited 0 after SIGTERM: ").append(ok).append('/')
                .append(runs.size()).append(ok == runs.size() ? " (all)" : " (**NOT all**)").append('\n');
        s.append("- Distribution: `").append(options.home()).append("`\n");
        s.append("- Machine: ").append(machine()).append('\n');
        s.append("- Load average (1/5/15 min) before: ").append(loadBefore).append(", after: ").append(loadAfter)
                .append(" (other work on the machine competes for its cores)\n");
        s.append("- Java: ").append(javaVersion(jvm)).append('\n');
        s.append("- JVM flags (from `/proc/<pid>/cmdline` of run 1): `").append(flags(jvm)).append("`\n");
        s.append("- `CARAVAN_JAVA_OPTS` given: ")
                .append(options.extraOpts().isEmpty() ? "(none)" : "`" + options.extraOpts() + "`").append("\n\n");

        s.append("| metric | min | median | max | target | median meets target |\n");
        s.append("|---|---:|---:|---:|---|---|\n");
        s.append(metric("time to ready (ms)", runs, Run::readyMs, false, TARGET_READY_MS));
        s.append(metric("CPU time used by then (ms, user+sys)", runs, Run::cpuReadyMs, false, -1));
        s.append(metric("RSS at ready+5 s (MiB)", runs, Run::rssReady5Kb, true, TARGET_RSS_MIB));
        s.append(metric("RSS at start+5 s (MiB)", runs, Run::rssStart5Kb, true, -1));
        s.append(metric("peak RSS, VmHWM at ready+5 s (MiB)", runs, Run::peakRssKb, true, -1));
        s.append(metric("shutdown after SIGTERM (ms)", runs, Run::shutdownMs, false, -1));
        s.append('\n');

        s.append("<details><summary>per run</summary>\n\n```\n").append(HEADER_ROW).append('\n');
        for (Run r : runs) {
            s.append(row(r)).append('\n');
        }
        s.append("```\n");
        for (Run r : runs) {
            if (r.failure() != null) {
                s.append("\nRun ").append(r.n()).append(" failed:\n\n```\n").append(r.failure()).append("\n```\n");
            }
        }
        s.append("</details>\n");
        return s.toString();
    }

    /** One table row: min / median / max over the runs that reached this metric, and the target verdict. */
    private static String metric(String name, List<Run> runs, ToLongFunction<Run> value, boolean kb, long target) {
        List<Long> v = runs.stream().mapToLong(value).filter(x -> x >= 0).sorted().boxed().toList();
        if (v.isEmpty()) {
            return "| " + name + " | - | - | - | " + (target < 0 ? "" : "≤ " + target) + " | no data |\n";
        }
        double median = v.size() % 2 == 1 ? v.get(v.size() / 2)
                : (v.get(v.size() / 2 - 1) + v.get(v.size() / 2)) / 2.0;
        double scale = kb ? 1024.0 : 1.0;
        String verdict = "";
        if (target >= 0) {
            long within = v.stream().filter(x -> x / scale <= target).count();
            verdict = (median / scale <= target ? "**yes**" : "**no**") + " (" + within + "/" + v.size()
                    + " runs within)";
        }
        String fmt = kb ? "%.1f" : "%.0f";
        return String.format(Locale.ROOT, "| %s | " + fmt + " | " + fmt + " | " + fmt + " | %s | %s |%n", name,
                v.get(0) / scale, median / scale, v.get(v.size() - 1) / scale,
                target < 0 ? "" : "≤ " + target, verdict);
    }

    static void append(Path file, String section) throws IOException {
        if (!Files.exists(file)) {
            Files.writeString(file, FILE_HEADER, StandardCharsets.UTF_8);
        }
        Files.writeString(file, "\n" + section, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    }

    static String loadAverage() {
        String[] f = read("/proc/loadavg").trim().split("\\s+");
        return f.length >= 3 ? f[0] + " / " + f[1] + " / " + f[2] : "unknown";
    }

    static String machine() {
        String cpu = field(read("/proc/cpuinfo"), "model name");
        String memKb = field(read("/proc/meminfo"), "MemTotal").replace("kB", "").trim();
        String mem = memKb.isEmpty() ? "unknown" : String.format(Locale.ROOT, "%.1f GiB",
                Long.parseLong(memKb) / 1024.0 / 1024.0);
        String os = field(read("/etc/os-release"), "PRETTY_NAME").replace("\"", "");
        return String.format("nproc %d, CPU %s, memory %s, %s, kernel %s %s",
                Runtime.getRuntime().availableProcessors(), cpu.isEmpty() ? "unknown" : cpu, mem,
                os.isEmpty() ? System.getProperty("os.name") : os, System.getProperty("os.version"),
                System.getProperty("os.arch"));
    }

    /** {@code java -version} of the binary the agent really ran (it resolves JAVA_HOME or PATH itself). */
    private static String javaVersion(ChildJvm jvm) {
        String java = jvm != null ? jvm.javaBinary().toString()
                : System.getenv("JAVA_HOME") != null ? System.getenv("JAVA_HOME") + "/bin/java" : "java";
        try {
            Process p = new ProcessBuilder(java, "-version").redirectErrorStream(true).start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return java + " (java -version timed out)";
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return "`" + java + "`: " + out.lines().collect(Collectors.joining(" / "));
        } catch (IOException e) {
            return java + " (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return java;
        }
    }

    /** The child's JVM flags, with the per-run paths made generic so sections compare cleanly. */
    private static String flags(ChildJvm jvm) {
        if (jvm == null) {
            return "unknown (run 1 ended before its JVM started)";
        }
        List<String> out = new ArrayList<>();
        for (String f : jvm.jvmFlags()) {
            if (f.startsWith("-Djava.io.tmpdir=")) {
                out.add("-Djava.io.tmpdir=<run dir>");
            } else if (f.startsWith("-Dcaravan.home=")) {
                out.add("-Dcaravan.home=<home>");
            } else {
                out.add(f);
            }
        }
        return String.join(" ", out);
    }

    private static String read(String path) {
        try {
            return Files.readString(Path.of(path));
        } catch (IOException e) {
            return "";
        }
    }

    /** The value of the first {@code key: value} or {@code key=value} line. */
    private static String field(String text, String key) {
        for (String line : text.split("\n")) {
            if (line.startsWith(key)) {
                String rest = line.substring(key.length()).trim();
                if (rest.startsWith(":") || rest.startsWith("=")) {
                    return rest.substring(1).trim();
                }
            }
        }
        return "";
    }

    private static String num(long v) {
        return v < 0 ? "-" : Long.toString(v);
    }

    private static String mib(long kb) {
        return kb < 0 ? "-" : String.format(Locale.ROOT, "%.1f", kb / 1024.0);
    }
}
