package io.caravan.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Reload latency of a running dev agent (target ≤ 100 ms), three ways: a no-op reload (request to response); a
 * client meta change (request until {@code /v1/agent/self} shows it); and a {@code log_level} change (request
 * until the agent's HTTP routes component has received the new Config Admin configuration, which is where
 * {@code /v1/agent/self} takes {@code LogLevel} from), i.e. until a component is updated.
 *
 * <pre>java -cp bench/target/classes io.caravan.bench.ReloadBench [reloads] [--no-results]</pre>
 */
public final class ReloadBench {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    private static final Duration WAIT = Duration.ofSeconds(10);

    private ReloadBench() {
    }

    public static void main(String[] args) throws Exception {
        int reloads = args.length > 0 && !args[0].startsWith("--") ? Integer.parseInt(args[0]) : 50;
        boolean record = !List.of(args).contains("--no-results");
        Path root = Paths.get("").toAbsolutePath();
        Path home = root.resolve("distribution/assembly/target/caravan");
        Path dir = Files.createTempDirectory("caravan-reload-bench-");
        int[] ports = StartupBench.freePorts(3);
        Path config = dir.resolve("agent.json");
        write(config, ports, "0", "INFO");
        String base = "http://127.0.0.1:" + ports[0];
        Process agent = new ProcessBuilder(home.resolve("bin/caravan").toString(), "agent", "-dev", "-config",
                config.toString()).redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile()).start();
        try {
            await(base + "/v1/agent/health", body -> true);
            for (int i = 0; i < 10; i++) { // warm-up
                reload(base);
            }
            List<Double> noop = new ArrayList<>();
            List<Double> meta = new ArrayList<>();
            List<Double> level = new ArrayList<>();
            for (int i = 1; i <= reloads; i++) {
                long t0 = System.nanoTime();
                reload(base);
                noop.add(ms(t0));

                write(config, ports, Integer.toString(i), i % 2 == 0 ? "INFO" : "DEBUG");
                t0 = System.nanoTime();
                reload(base);
                String rev = "\"Meta\":{\"rev\":\"" + i + "\"}";
                String lvl = "\"LogLevel\":\"" + (i % 2 == 0 ? "INFO" : "DEBUG") + "\"";
                await(base + "/v1/agent/self", body -> body.contains(rev));
                meta.add(ms(t0));
                await(base + "/v1/agent/self", body -> body.contains(lvl));
                level.add(ms(t0));
            }
            String section = section(reloads, noop, meta, level);
            System.out.print(section);
            if (record) {
                Report.append(root.resolve("bench/RESULTS.md"), section);
            }
        } finally {
            agent.destroy();
            if (!agent.waitFor(20, TimeUnit.SECONDS)) {
                agent.destroyForcibly();
            }
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Written to a temp file and renamed, so the agent never reads half a file. */
    private static void write(Path config, int[] ports, String rev, String level) throws IOException {
        Path tmp = config.resolveSibling("agent.json.tmp");
        Files.writeString(tmp, String.format("{\"ports\": {\"http\": %d, \"rpc\": %d, \"serf\": %d},"
                + " \"log_level\": \"%s\", \"client\": {\"meta\": {\"rev\": \"%s\"}}}", ports[0], ports[1], ports[2],
                level, rev));
        Files.move(tmp, config, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void reload(String base) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/v1/agent/reload"))
                .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("reload answered " + r.statusCode() + ": " + r.body());
        }
    }

    private static void await(String url, Predicate<String> done) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 && done.test(r.body())) {
                    return;
                }
            } catch (IOException notYet) {
                // the agent is still starting
            }
            Thread.sleep(1);
        }
        throw new IllegalStateException("timed out waiting for " + url);
    }

    private static double ms(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }

    private static String section(int reloads, List<Double> noop, List<Double> meta, List<Double> level) {
        StringBuilder s = new StringBuilder();
        s.append("## ").append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")))
                .append(" UTC — reload latency (ReloadBench, ").append(reloads).append(" reloads each)\n\n");
        s.append("- Machine: ").append(Report.machine()).append('\n');
        s.append("- Load average: ").append(Report.loadAverage()).append('\n');
        s.append("- A dev agent with one JSON config file; each reload rewrites the file, then `PUT /v1/agent/reload`.\n\n");
        s.append("| reload | min | median | p90 | max | target | median meets target |\n|---|---:|---:|---:|---:|---|---|\n");
        s.append(row("no-op (request → response)", noop));
        s.append(row("client meta change (request → visible in /v1/agent/self)", meta));
        s.append(row("log_level change (request → component updated via Config Admin)", level));
        return s.append('\n').toString();
    }

    private static String row(String name, List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        double median = sorted.get(sorted.size() / 2);
        return String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f | ≤ 100 ms | %s |%n", name, sorted.get(0),
                median, sorted.get((int) Math.ceil(sorted.size() * 0.9) - 1), sorted.get(sorted.size() - 1),
                median <= 100 ? "yes" : "**no**");
    }
}
