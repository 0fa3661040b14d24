package io.caravan.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One {@code bin/caravan agent -dev} on free loopback ports, in its own temp dir (config, log, {@code java.io.tmpdir}),
 * for the harnesses that drive a single running agent (RegisterBench, BlockingQueriesBench). {@link #close()} sends
 * SIGTERM, kills it after 20 s, and deletes the dir; it only ever touches the process it started.
 */
final class DevAgent implements AutoCloseable {
    /** Generous: with 5,000 simulated nodes registering at once on a shared 2-core machine (load 30+) 60 s ran out. */
    static final Duration READY_TIMEOUT = Duration.ofSeconds(180);

    final Path dir;
    final Path log;
    final int httpPort;
    final String base;
    private final Process process;

    private DevAgent(Path dir, int httpPort, Process process) {
        this.dir = dir;
        this.log = dir.resolve("agent.log");
        this.httpPort = httpPort;
        this.base = "http://127.0.0.1:" + httpPort;
        this.process = process;
    }

    /** Starts the agent and returns once {@code /v1/agent/health} answers 200 (Raft has a leader). */
    static DevAgent start(Path home, String extraConfig) throws IOException, InterruptedException {
        return start(home, extraConfig, "");
    }

    /** @param javaOpts extra agent JVM options (after bin/caravan's own, so they win) */
    static DevAgent start(Path home, String extraConfig, String javaOpts) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("caravan-bench-agent-");
        int[] ports = StartupBench.freePorts(3);
        Path config = dir.resolve("agent.json");
        Files.writeString(config, String.format("{\"ports\": {\"http\": %d, \"rpc\": %d, \"serf\": %d}%s}%n",
                ports[0], ports[1], ports[2], extraConfig == null || extraConfig.isEmpty() ? "" : ", " + extraConfig));
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/caravan").toString(), "agent", "-dev", "-config",
                config.toString()).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("agent.log").toFile());
        // -dev data dir goes with the temp dir
        pb.environment().put("CARAVAN_JAVA_OPTS", ("-Djava.io.tmpdir=" + dir + " " + javaOpts).trim());
        DevAgent agent = new DevAgent(dir, ports[0], pb.start());
        try {
            agent.awaitHealthy();
            return agent;
        } catch (IOException | InterruptedException | RuntimeException e) {
            agent.close();
            throw e;
        }
    }

    private void awaitHealthy() throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest health = HttpRequest.newBuilder(URI.create(base + "/v1/agent/health"))
                .timeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("agent exited with " + process.exitValue() + " before it was ready"
                        + tail(30));
            }
            try {
                if (http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("agent not healthy after " + READY_TIMEOUT.toSeconds() + " s" + tail(30));
    }

    /** The harness's own JVM flags, as Markdown: they change how much CPU the load generator takes. */
    static String harnessFlags() {
        List<String> args = java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments();
        return args.isEmpty() ? "(none)" : "`" + String.join(" ", args) + "`";
    }

    /** bin/caravan execs java, so this is the agent JVM's PID. */
    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Threads: from /proc/PID/status, or -1. */
    long threads() {
        return StartupBench.statusKb(pid(), "Threads"); // same "Field: n" format, without the kB
    }

    long openFds() {
        String[] fds = new java.io.File("/proc/" + pid() + "/fd").list();
        return fds == null ? -1 : fds.length;
    }

    /** {@code jcmd PID GC.heap_info}, or a note why not (jcmd missing, attach refused). Bounded to 20 s. */
    String heapInfo() {
        return heapInfo(pid());
    }

    /** {@link #heapInfo()} of any JVM. */
    static String heapInfo(long pid) {
        try {
            Process p = new ProcessBuilder("jcmd", Long.toString(pid), "GC.heap_info").redirectErrorStream(true)
                    .start();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "(jcmd timed out)";
            }
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            return "(jcmd unavailable: " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        }
    }

    /** Used heap in KiB, summed over the generations' "used NNNK" figures of GC.heap_info (SerialGC / G1 style). */
    static long heapUsedKb(String heapInfo) {
        long sum = 0;
        boolean any = false;
        for (String line : heapInfo.split("\n")) {
            String t = line.trim();
            // SerialGC: "def new generation total ..K, used ..K" and "tenured generation total ..K, used ..K";
            // G1: "garbage-first heap total ..K, used ..K".
            if (t.startsWith("def new generation") || t.startsWith("tenured generation")
                    || t.startsWith("garbage-first heap") || t.startsWith("PSYoungGen") || t.startsWith("ParOldGen")) {
                int i = t.indexOf("used ");
                if (i >= 0) {
                    String v = t.substring(i + 5).split("[K ,]")[0];
                    sum += Long.parseLong(v);
                    any = true;
                }
            }
        }
        return any ? sum : -1;
    }

    /** Lines of the agent log at WARN or ERROR, or mentioning an exception (at most {@code max}), and their count. */
    List<String> problems(int max) {
        return problems(log, max);
    }

    /** The WARN/ERROR/exception lines of an agent's log (at most {@code max}). */
    static List<String> problems(Path log, int max) {
        try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
            return lines.filter(l -> l.contains("[WARN]") || l.contains("[ERROR]") || l.contains("Exception")
                    || l.contains(" WARN ") || l.contains(" ERROR ")).limit(max).toList();
        } catch (IOException | java.io.UncheckedIOException e) {
            return List.of("(could not read the agent log: " + e.getMessage() + ")");
        }
    }

    String tail(int n) {
        return tail(log, n);
    }

    /** The last {@code n} lines of an agent's log, for an error message. */
    static String tail(Path log, int n) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return "\n--- last lines of " + log.getFileName() + " ---\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException e) {
            return " (no agent log: " + e.getMessage() + ")";
        }
    }

    /**
     * SIGTERM, up to 60 s for the agent's own shutdown (a JFR recording of a big run is written then), then SIGKILL;
     * then the temp dir goes.
     */
    @Override
    public void close() throws InterruptedException {
        try {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                System.err.println("warning: agent " + pid() + " did not stop within 60 s of SIGTERM; killing it");
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } finally {
            deleteTree(dir);
        }
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("warning: could not delete " + dir + ": " + e.getMessage());
        }
    }
}
