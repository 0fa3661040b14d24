package io.caravan.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Start-up scenario for a {@code -dev} agent: spawns {@code bin/caravan agent -dev} N times and measures time to a
 * healthy HTTP API, RSS five seconds later, and how long a SIGTERM takes to stop it. A benchmark, not a test: it
 * runs only when asked (README.md), and appends its numbers to {@code bench/RESULTS.md}.
 *
 * <pre>StartupBench [runs] [--opts "JVM options"] [--label text] [--home dir] [--results file | --no-results]</pre>
 */
public final class StartupBench {
    static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    static final Duration POLL_INTERVAL = Duration.ofMillis(10);
    static final Duration RSS_DELAY = Duration.ofSeconds(5);
    /** The agent allows itself ~15 s to stop; beyond 20 s it counts as hung and is killed. */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

    /** One measured run; -1 marks a value not reached because the run failed earlier. */
    record Run(int n, long readyMs, long cpuReadyMs, long rssStart5Kb, long rssReady5Kb, long peakRssKb,
            long shutdownMs, int exitCode, String failure) {
        boolean ok() {
            return failure == null && exitCode == 0;
        }
    }

    /** What the first run saw of the real child JVM: its binary and the flags bin/caravan gave it. */
    record ChildJvm(Path javaBinary, List<String> jvmFlags) {}

    record Options(int runs, String extraOpts, String label, Path home, Path results) {}

    private final Options options;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1) // no h2c upgrade dance: one plain request per poll
            .connectTimeout(Duration.ofSeconds(1))
            .build();
    private ChildJvm childJvm;

    StartupBench(Options options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("usage: StartupBench [runs] [--opts \"JVM options\"] [--label text] [--home dir]"
                    + " [--results file | --no-results]");
            System.exit(2);
            return;
        }
        if (!new StartupBench(options).runAll()) {
            System.exit(1); // only on failure: a plain return keeps `mvn exec:java` going normally
        }
    }

    /** @return whether every run became ready and exited 0 after SIGTERM */
    boolean runAll() throws Exception {
        System.out.printf("Caravan home: %s%nRuns: %d, extra JVM options: %s%n", options.home(), options.runs(),
                options.extraOpts().isEmpty() ? "(none)" : options.extraOpts());
        warmUpHttpClient();
        System.out.println(Report.HEADER_ROW);
        String loadBefore = Report.loadAverage();
        List<Run> runs = new ArrayList<>();
        for (int i = 1; i <= options.runs(); i++) {
            Run run = runOnce(i);
            runs.add(run);
            System.out.println(Report.row(run));
            if (run.failure() != null) {
                System.err.println("run " + i + " failed: " + run.failure());
            }
        }
        String loadAfter = Report.loadAverage();
        String section = Report.section(options, runs, childJvm, loadBefore, loadAfter);
        System.out.println();
        System.out.println(section);
        if (options.results() != null) {
            Report.append(options.results(), section);
            System.out.println("Appended to " + options.results());
        }
        return runs.stream().allMatch(Run::ok);
    }

    /**
     * The harness's own first HTTP request loads ~100 JDK classes; doing it before the first spawn keeps that CPU
     * off the agent's start-up, which on a 2-core machine would otherwise inflate run 1.
     */
    private void warmUpHttpClient() throws IOException {
        int closedPort = freePorts(1)[0];
        healthy(closedPort);
    }

    Run runOnce(int n) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("caravan-bench-");
        Path log = dir.resolve("agent.log");
        Process process = null;
        List<ProcessHandle> children = List.of();
        long readyMs = -1;
        long cpuReadyMs = -1;
        long rssStart5 = -1;
        long rssReady5 = -1;
        long peak = -1;
        long shutdownMs = -1;
        int exit = -1;
        try {
            int[] ports = freePorts(3);
            Path config = dir.resolve("agent.json");
            Files.writeString(config, String.format("{\"ports\": {\"http\": %d, \"rpc\": %d, \"serf\": %d}}%n",
                    ports[0], ports[1], ports[2]));
            ProcessBuilder pb = new ProcessBuilder(options.home().resolve("bin/caravan").toString(),
                    "agent", "-dev", "-config", config.toString())
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            // java.io.tmpdir inside our temp dir: the agent's OSGi cache and -dev data dir are then deleted with
            // it even if the agent had to be killed, so repeated runs cannot fill /tmp.
            pb.environment().put("CARAVAN_JAVA_OPTS", (options.extraOpts() + " -Djava.io.tmpdir=" + dir).trim());

            long t0 = System.nanoTime();
            process = pb.start();
            long pid = process.pid();
            if (childJvm == null) {
                childJvm = inspect(pid);
            }

            long deadline = t0 + READY_TIMEOUT.toNanos();
            while (!healthy(ports[0])) {
                if (rssStart5 < 0 && System.nanoTime() - t0 >= RSS_DELAY.toNanos()) {
                    rssStart5 = statusKb(pid, "VmRSS"); // slow start: sample on schedule, ready or not
                }
                if (!process.isAlive()) {
                    exit = process.exitValue();
                    return failed(n, readyMs, cpuReadyMs, exit,
                            "exited with " + exit + " before it was ready" + signalHint(exit), log);
                }
                if (System.nanoTime() > deadline) {
                    return failed(n, readyMs, cpuReadyMs, exit,
                            "not ready after " + READY_TIMEOUT.toSeconds() + " s", log);
                }
                Thread.sleep(POLL_INTERVAL.toMillis());
            }
            long ready = System.nanoTime();
            readyMs = TimeUnit.NANOSECONDS.toMillis(ready - t0);
            cpuReadyMs = cpuMs(pid);

            // The target says "RSS 5 s after start"; ready+5 s is the steadier point (start-up allocation
            // is over), so both are recorded and the target is judged on ready+5 s.
            sleepUntil(t0 + RSS_DELAY.toNanos());
            if (rssStart5 < 0) {
                rssStart5 = statusKb(pid, "VmRSS");
            }
            sleepUntil(ready + RSS_DELAY.toNanos());
            if (!process.isAlive()) {
                exit = process.exitValue();
                return failed(n, readyMs, cpuReadyMs, exit,
                        "exited with " + exit + " while idle, before the harness sent SIGTERM" + signalHint(exit), log);
            }
            rssReady5 = statusKb(pid, "VmRSS");
            peak = statusKb(pid, "VmHWM");

            children = process.descendants().toList(); // a -dev agent should have none; reap any it left
            long stop = System.nanoTime();
            process.destroy(); // SIGTERM on Linux: the agent's own shutdown path
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                return new Run(n, readyMs, cpuReadyMs, rssStart5, rssReady5, peak, -1, -1,
                        "did not stop within " + STOP_TIMEOUT.toSeconds() + " s of SIGTERM" + tail(log));
            }
            shutdownMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stop);
            exit = process.exitValue();
            return new Run(n, readyMs, cpuReadyMs, rssStart5, rssReady5, peak, shutdownMs, exit,
                    exit == 0 ? null : "exit code " + exit + tail(log));
        } finally {
            // Whatever happened above, nothing of this run may outlive it and disturb the next one.
            if (process != null && process.isAlive()) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
            for (ProcessHandle child : children) {
                child.destroyForcibly();
            }
            deleteTree(dir);
        }
    }

    /** On a shared machine, other people's jobs have been seen to SIGTERM stray agents: say so when it happens. */
    private static String signalHint(int exit) {
        return exit == 143 || exit == 0 ? " (a SIGTERM from outside the harness?)" : "";
    }

    private static Run failed(int n, long readyMs, long cpuReadyMs, int exit, String why, Path log) {
        return new Run(n, readyMs, cpuReadyMs, -1, -1, -1, -1, exit, why + tail(log));
    }

    /** True iff the health endpoint answered 200; every wait is bounded by the client's timeouts. */
    private boolean healthy(int port) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/agent/health"))
                .timeout(Duration.ofSeconds(2))
                .GET().build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException notYet) {
            return false; // connection refused until Jetty binds the configured port
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Distinct free loopback ports: all sockets stay open until every port is picked, so the kernel cannot hand the
     * same one out twice. A tiny race remains (another process may take one before the agent binds it).
     */
    static int[] freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
    }

    /** bin/caravan execs java, so the spawned PID is the JVM; /proc shows exactly what it was started with. */
    private static ChildJvm inspect(long pid) throws InterruptedException {
        // The exec happens a few ms after the spawn; until then /proc shows bash running the script.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            try {
                Path exe = Files.readSymbolicLink(Path.of("/proc/" + pid + "/exe"));
                if (exe.getFileName().toString().equals("java")) {
                    String[] argv = Files.readString(Path.of("/proc/" + pid + "/cmdline")).split("\0");
                    List<String> flags = new ArrayList<>();
                    for (int i = 1; i < argv.length && !argv[i].equals("-cp"); i++) {
                        flags.add(argv[i]);
                    }
                    return new ChildJvm(exe, flags);
                }
            } catch (IOException e) {
                return null; // process already gone: the run itself reports why
            }
            Thread.sleep(2);
        }
        return null;
    }

    /** A {@code kB} field of /proc/PID/status, e.g. VmRSS (resident now) or VmHWM (peak resident). */
    static long statusKb(long pid, String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith(field + ":")) {
                    return Long.parseLong(line.substring(field.length() + 1).replace("kB", "").trim());
                }
            }
        } catch (IOException | NumberFormatException gone) {
            // fall through: reported as missing
        }
        return -1;
    }

    /**
     * User + system CPU time the agent has used so far (all threads), from /proc/PID/stat. On a shared machine the
     * wall-clock time to ready grows with other load; the CPU time it took hardly does, so flag variants compare
     * better on it. /proc reports clock ticks of USER_HZ, which is 100 on Linux.
     */
    static long cpuMs(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            // Fields after "(comm)": state is [0], utime [11], stime [12] (fields 14 and 15 of proc(5)).
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
        } catch (IOException | RuntimeException gone) {
            return -1;
        }
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left = nanoTime - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    /** The last lines of the agent's log, so a failure can be diagnosed after the temp dir is gone. */
    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return "\n--- last lines of the agent log ---\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return " (no agent log: " + e.getMessage() + ")";
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("warning: could not delete " + root + ": " + e.getMessage());
        }
    }

    static Options parse(String[] args) {
        int runs = 10;
        String opts = "";
        String label = null;
        Path home = null;
        Path results = null;
        boolean noResults = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--opts" -> opts = value(args, ++i, a).trim();
                case "--label" -> label = value(args, ++i, a);
                case "--home" -> home = Path.of(value(args, ++i, a));
                case "--results" -> results = Path.of(value(args, ++i, a));
                case "--no-results" -> noResults = true;
                default -> {
                    try {
                        runs = Integer.parseInt(a);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("unknown argument " + a);
                    }
                    if (runs < 1) {
                        throw new IllegalArgumentException("runs must be at least 1");
                    }
                }
            }
        }
        Path root = repoRoot(Path.of("").toAbsolutePath());
        if (home == null) {
            if (root == null) {
                throw new IllegalArgumentException("not inside the Caravan repository; pass --home");
            }
            home = root.resolve("distribution/assembly/target/caravan");
        }
        if (!Files.isExecutable(home.resolve("bin/caravan"))) {
            throw new IllegalArgumentException(home.resolve("bin/caravan") + " missing: build the distribution"
                    + " (mvn -B -q install -DskipTests) or pass --home");
        }
        if (results == null && !noResults && root != null) {
            results = root.resolve("bench/RESULTS.md");
        }
        if (label == null) {
            label = opts.isEmpty() ? "default flags" : "experiment: " + opts;
        }
        return new Options(runs, opts, label, home.toAbsolutePath().normalize(), noResults ? null : results);
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }

    /** The nearest directory at or above {@code dir} holding bench/pom.xml, or null. */
    private static Path repoRoot(Path dir) {
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("bench/pom.xml"))) {
                return d;
            }
        }
        return null;
    }
}
