package io.caravan.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Job-register throughput and latency of a dev agent (issue targets: ≥ 2,000 registers/s with 64 concurrent
 * clients; p50 ≤ 2 ms with one client). Every {@code PUT /v1/jobs} is a Raft write (one Ratis server, fsync'd log)
 * plus a state-store commit. After 200 warm-up registers: (a) one client, sequential; (b) 64 concurrent clients in a
 * closed loop for 10 s, each register a new job ID; (c) the same with 64 clients re-registering a fixed set of 100
 * IDs (updates); (d) one client, sequential updates. The 64 "clients" are 64 outstanding {@code sendAsync} requests
 * on one {@link HttpClient} (HTTP/1.1, so 64 keep-alive connections) whose executor is a fixed pool of 2 threads:
 * the load generator stays light on a 2-core machine.
 *
 * <p>{@code --acl} runs the same against an agent with {@code acl { enabled = true }}: the harness bootstraps a
 * management token and sends it as {@code X-Nomad-Token} with every register (issue 13: throughput within 5 % of
 * ACLs off).
 *
 * <pre>java -cp bench/target/classes io.caravan.bench.RegisterBench [--sequential 2000] [--clients 64]
 *     [--seconds 10] [--acl] [--no-results]</pre>
 */
public final class RegisterBench {
    static final double TARGET_RATE = 2000;
    static final double TARGET_P50_MS = 2;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient http;
    private final String base;
    /** The X-Nomad-Token sent with every register; null with ACLs off. */
    private final String token;
    private final AtomicLong nextId = new AtomicLong();

    /** A measured phase: latencies in ns (successes and failures alike), wall time, errors and the first few. */
    record Phase(String name, int clients, long[] latNs, long wallNs, long errors, List<String> firstErrors,
            long agentCpuMs, long clientCpuMs) {
        double rate() {
            return (latNs.length - errors) / (wallNs / 1e9);
        }

        double pct(double p) {
            if (latNs.length == 0) {
                return Double.NaN;
            }
            int i = (int) Math.ceil(latNs.length * p) - 1;
            return latNs[Math.max(0, Math.min(latNs.length - 1, i))] / 1e6;
        }
    }

    private RegisterBench(HttpClient http, String base, String token) {
        this.http = http;
        this.base = base;
        this.token = token;
    }

    public static void main(String[] args) throws Exception {
        int sequential = 2000;
        int clients = 64;
        int seconds = 10;
        boolean record = true;
        boolean acl = false;
        String extraConfig = ""; // agent config keys to add, e.g. "\"log_level\": \"INFO\""
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sequential" -> sequential = Integer.parseInt(args[++i]);
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--no-results" -> record = false;
                case "--config" -> extraConfig = args[++i];
                case "--acl" -> acl = true;
                default -> {
                    System.err.println("usage: RegisterBench [--sequential n] [--clients n] [--seconds s] [--acl]"
                            + " [--no-results]");
                    System.exit(2);
                }
            }
        }
        Path root = Paths.get("").toAbsolutePath();
        Path home = root.resolve("distribution/assembly/target/caravan");
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "bench-http");
            t.setDaemon(true);
            return t;
        });
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(pool)
                .connectTimeout(Duration.ofSeconds(5)).build();
        String loadBefore = Report.loadAverage();
        List<Phase> phases = new ArrayList<>();
        List<String> problems;
        List<String> warmErrors;
        long agentThreads;
        long agentRssKb;
        if (acl) {
            extraConfig = (extraConfig.isEmpty() ? "" : extraConfig + ", ") + "\"acl\": {\"enabled\": true}";
        }
        try (DevAgent agent = DevAgent.start(home, extraConfig)) {
            RegisterBench bench = new RegisterBench(http, agent.base, acl ? bootstrap(http, agent.base) : null);
            System.out.println("agent pid " + agent.pid() + " on " + agent.base + (acl ? ", ACLs on" : ", ACLs off"));
            Phase warm = bench.sequential("warm-up", 200, bench::newJob, agent.pid());
            print(warm);
            warmErrors = warm.errors() == 0 ? List.of() : warm.firstErrors();
            final int c = clients;
            phases.add(bench.sequential("1 client, sequential, new jobs", sequential, bench::newJob, agent.pid()));
            print(phases.get(phases.size() - 1));
            phases.add(bench.concurrent(c + " clients, " + seconds + " s, new jobs", c, seconds, bench::newJob,
                    agent.pid()));
            print(phases.get(phases.size() - 1));
            phases.add(bench.concurrent(c + " clients, " + seconds + " s, updates of 100 jobs", c, seconds,
                    n -> body("bench-upd-" + (n % 100)), agent.pid()));
            print(phases.get(phases.size() - 1));
            phases.add(bench.sequential("1 client, sequential, updates of 100 jobs", Math.min(sequential, 1000),
                    n -> body("bench-upd-" + (n % 100)), agent.pid()));
            print(phases.get(phases.size() - 1));
            agentThreads = agent.threads();
            agentRssKb = StartupBench.statusKb(agent.pid(), "VmRSS");
            problems = agent.problems(10);
            if (!agent.alive()) {
                throw new IllegalStateException("the agent died during the run" + agent.tail(30));
            }
        } finally {
            pool.shutdownNow();
        }
        String section = section(phases, clients, acl, loadBefore, Report.loadAverage(), agentThreads, agentRssKb,
                problems, warmErrors);
        System.out.println();
        System.out.print(section);
        if (record) {
            Report.append(root.resolve("bench/RESULTS.md"), section);
            System.out.println("Appended to bench/RESULTS.md");
        }
    }

    /** The management token of {@code POST /v1/acl/bootstrap}. */
    private static String bootstrap(HttpClient http, String base) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/acl/bootstrap"))
                .timeout(REQUEST_TIMEOUT).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("ACL bootstrap answered " + r.statusCode() + ": " + abbreviate(r.body()));
        }
        // A regex, not Jackson: this harness runs on the JDK alone (-cp bench/target/classes).
        Matcher m = Pattern.compile("\"SecretID\"\\s*:\\s*\"([^\"]+)\"").matcher(r.body());
        if (!m.find()) {
            throw new IllegalStateException("ACL bootstrap answered without a SecretID: " + abbreviate(r.body()));
        }
        return m.group(1);
    }

    private String newJob(long n) {
        return body("bench-" + n);
    }

    static String body(String id) {
        return "{\"Job\":{\"ID\":\"" + id + "\",\"TaskGroups\":[{\"Name\":\"g\",\"Tasks\":[{\"Name\":\"t\","
                + "\"Driver\":\"raw_exec\",\"Config\":{\"command\":\"/bin/sleep\",\"args\":[\"1\"]}}]}]}}";
    }

    private HttpRequest request(String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/v1/jobs")).timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json");
        if (token != null) {
            b.header("X-Nomad-Token", token);
        }
        return b.PUT(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private static boolean ok(HttpResponse<String> r) {
        return r.statusCode() == 200 && r.body().contains("\"EvalID\"");
    }

    private Phase sequential(String name, int count, LongFunction<String> bodies, long pid) throws InterruptedException {
        long[] lat = new long[count];
        long errors = 0;
        List<String> first = new ArrayList<>();
        long cpu0 = StartupBench.cpuMs(pid);
        long client0 = clientCpuMs();
        long t0 = System.nanoTime();
        for (int i = 0; i < count; i++) {
            HttpRequest req = request(bodies.apply(nextId.getAndIncrement()));
            long s = System.nanoTime();
            String err = null;
            try {
                HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
                if (!ok(r)) {
                    err = r.statusCode() + ": " + abbreviate(r.body());
                }
            } catch (IOException e) {
                err = e.toString();
            }
            lat[i] = System.nanoTime() - s;
            if (err != null) {
                errors++;
                if (first.size() < 5) {
                    first.add(err);
                }
            }
        }
        long wall = System.nanoTime() - t0;
        Arrays.sort(lat);
        return new Phase(name, 1, lat, wall, errors, first, StartupBench.cpuMs(pid) - cpu0, clientCpuMs() - client0);
    }

    /** A closed loop: each of {@code clients} slots sends its next register as soon as the previous one answered. */
    private Phase concurrent(String name, int clients, int seconds, LongFunction<String> bodies, long pid)
            throws InterruptedException {
        ConcurrentLinkedQueue<Long> lat = new ConcurrentLinkedQueue<>();
        AtomicLong errors = new AtomicLong();
        ConcurrentLinkedQueue<String> first = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(clients);
        long cpu0 = StartupBench.cpuMs(pid);
        long client0 = clientCpuMs();
        long t0 = System.nanoTime();
        long end = t0 + TimeUnit.SECONDS.toNanos(seconds);
        AtomicLong lastCompletion = new AtomicLong(t0);
        for (int c = 0; c < clients; c++) {
            loop(end, bodies, lat, errors, first, done, lastCompletion);
        }
        if (!done.await(seconds + REQUEST_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS)) {
            first.add("harness: " + done.getCount() + " clients still waiting after the bounded wait");
        }
        long wall = lastCompletion.get() - t0;
        long[] sorted = lat.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Phase(name, clients, sorted, wall, errors.get(), first.stream().limit(5).toList(),
                StartupBench.cpuMs(pid) - cpu0, clientCpuMs() - client0);
    }

    private void loop(long end, LongFunction<String> bodies, ConcurrentLinkedQueue<Long> lat, AtomicLong errors,
            ConcurrentLinkedQueue<String> first, CountDownLatch done, AtomicLong lastCompletion) {
        HttpRequest req = request(bodies.apply(nextId.getAndIncrement()));
        long s = System.nanoTime();
        CompletableFuture<HttpResponse<String>> f = http.sendAsync(req, HttpResponse.BodyHandlers.ofString());
        f.whenComplete((r, e) -> {
            long now = System.nanoTime();
            lat.add(now - s);
            lastCompletion.accumulateAndGet(now, Math::max);
            String err = e != null ? e.toString() : ok(r) ? null : r.statusCode() + ": " + abbreviate(r.body());
            if (err != null) {
                errors.incrementAndGet();
                if (first.size() < 5) {
                    first.add(err);
                }
            }
            if (now < end) {
                loop(end, bodies, lat, errors, first, done, lastCompletion);
            } else {
                done.countDown();
            }
        });
    }

    private static long clientCpuMs() {
        return ProcessHandle.current().info().totalCpuDuration().map(Duration::toMillis).orElse(-1L);
    }

    private static String abbreviate(String s) {
        s = s.replace('\n', ' ');
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }

    private static void print(Phase p) {
        System.out.printf(Locale.ROOT, "%-45s n=%d errors=%d rate=%.0f/s p50=%.2f p90=%.2f p99=%.2f max=%.2f ms"
                        + " agent cpu=%d ms client cpu=%d ms%n", p.name(), p.latNs().length, p.errors(), p.rate(),
                p.pct(0.5), p.pct(0.9), p.pct(0.99), p.pct(1.0), p.agentCpuMs(), p.clientCpuMs());
        for (String e : p.firstErrors()) {
            System.out.println("  error: " + e);
        }
    }

    private static String section(List<Phase> phases, int clients, boolean acl, String loadBefore, String loadAfter,
            long threads, long rssKb, List<String> problems, List<String> warmErrors) {
        StringBuilder s = new StringBuilder();
        s.append("## ").append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")))
                .append(" UTC — job register throughput and latency (RegisterBench")
                .append(acl ? ", ACLs on" : "").append(")\n\n");
        s.append("- Machine: ").append(Report.machine()).append('\n');
        s.append("- Load average (1/5/15 min) before: ").append(loadBefore).append(", after: ").append(loadAfter)
                .append('\n');
        s.append("- One dev agent (default `-dev` config, one Ratis server, fsync'd log")
                .append(acl ? "; `acl { enabled = true }`, every register sent with the bootstrap management token"
                        + " as `X-Nomad-Token`" : "").append("); `PUT /v1/jobs` with a one-task")
                .append(" `raw_exec` job; 200 warm-up registers first. A register counts as an error unless it")
                .append(" answers 200 with an `EvalID`.\n");
        s.append("- Load generator: one `java.net.http.HttpClient` (HTTP/1.1, keep-alive) with a fixed pool of 2")
                .append(" threads; the ").append(clients).append(" concurrent clients are ").append(clients)
                .append(" outstanding `sendAsync` requests in a closed loop (the next one is sent when the previous")
                .append(" answers). Latency is request sent → response body read, as the client sees it.\n");
        s.append("- Harness JVM flags: ").append(DevAgent.harnessFlags()).append('\n');
        s.append("- Agent after the run: ").append(threads).append(" threads, RSS ")
                .append(String.format(Locale.ROOT, "%.1f MiB", rssKb / 1024.0)).append("\n\n");
        s.append("| phase | registers | errors | throughput (/s) | p50 (ms) | p90 (ms) | p99 (ms) | max (ms) |")
                .append(" agent CPU (ms) | agent CPU per register (ms) | harness CPU (ms) |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Phase p : phases) {
            s.append(String.format(Locale.ROOT, "| %s | %d | %d | %.0f | %.2f | %.2f | %.2f | %.1f | %d | %.2f | %d |%n",
                    p.name(), p.latNs().length, p.errors(), p.rate(), p.pct(0.5), p.pct(0.9), p.pct(0.99),
                    p.pct(1.0), p.agentCpuMs(), (double) p.agentCpuMs() / Math.max(1, p.latNs().length),
                    p.clientCpuMs()));
        }
        Phase seq = phases.get(0);
        Phase conc = phases.get(1);
        s.append('\n');
        s.append(String.format(Locale.ROOT, "- Target p50 ≤ %.0f ms with 1 client (new jobs): %.2f ms — %s%n",
                TARGET_P50_MS, seq.pct(0.5), seq.pct(0.5) <= TARGET_P50_MS ? "**met**" : "**not met**"));
        s.append(String.format(Locale.ROOT, "- Target ≥ %.0f registers/s with %d clients (new jobs): %.0f/s — %s%n",
                TARGET_RATE, conc.clients(), conc.rate(), conc.rate() >= TARGET_RATE && conc.errors() == 0
                        ? "**met**" : "**not met**"));
        double perRegister = (double) conc.agentCpuMs() / Math.max(1, conc.latNs().length);
        s.append(String.format(Locale.ROOT, "- CPU bound: with %d clients the agent spent %.2f ms of CPU per register,"
                        + " so even with both cores to itself it could not exceed ~%.0f registers/s; the harness's"
                        + " `HttpClient` used another %.2f ms per register on the same cores.%n", conc.clients(),
                perRegister, 2000 / perRegister, (double) conc.clientCpuMs() / Math.max(1, conc.latNs().length)));
        for (String e : warmErrors) {
            s.append("- Warm-up error (not counted above): `").append(e).append("`\n");
        }
        for (Phase p : phases) {
            for (String e : p.firstErrors()) {
                s.append("- Error (").append(p.name()).append("): `").append(e).append("`\n");
            }
        }
        if (problems.isEmpty()) {
            s.append("- Agent log: no WARN/ERROR lines or exceptions.\n");
        } else {
            s.append("- Agent log, first WARN/ERROR/exception lines:\n\n```\n").append(String.join("\n", problems))
                    .append("\n```\n");
        }
        return s.append('\n').toString();
    }
}
