package io.caravan.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
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
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

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
 * <p>{@code --follower} starts a three-server {@link Cluster} instead and sends the registers to a follower, so each
 * crosses the RPC port to the leader and is replicated over Raft; {@code --tls} turns on mutual TLS on RPC and Raft
 * with certificates made by {@code caravan tls}. {@code --pairs n} runs a plain and an mTLS cluster side by side and
 * alternates between them n times (issue 14: at most 15 % throughput loss with mTLS).
 *
 * <pre>java -cp bench/target/classes io.caravan.bench.RegisterBench [--sequential 2000] [--clients 64]
 *     [--seconds 10] [--acl] [--no-results] [--jfr dir] [--follower [--tls | --pairs n]] [--home dir]</pre>
 */
public final class RegisterBench {
    static final double TARGET_RATE = 2000;
    static final double TARGET_P50_MS = 2;
    /** Issue 14: at most 15 % less throughput through a follower with mTLS than without. */
    static final double TARGET_TLS_LOSS = 0.15;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient http;
    /** Where the registers go; a cluster's follower can change between phases. */
    private String base;
    /** The X-Nomad-Token sent with every register; null with ACLs off. */
    private final String token;
    /** CPU time used so far by the agent, or by all servers of a cluster. */
    private final LongSupplier serverCpuMs;
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

    private RegisterBench(HttpClient http, String base, String token, LongSupplier serverCpuMs) {
        this.http = http;
        this.base = base;
        this.token = token;
        this.serverCpuMs = serverCpuMs;
    }

    public static void main(String[] args) throws Exception {
        int sequential = 2000;
        int clients = 64;
        int seconds = 10;
        boolean record = true;
        boolean acl = false;
        boolean follower = false;
        boolean tls = false;
        int pairs = 0;
        int warmupSeconds = 30;
        Path jfr = null;
        Path root = Paths.get("").toAbsolutePath();
        Path home = root.resolve("distribution/assembly/target/caravan");
        String extraConfig = ""; // agent config keys to add, e.g. "\"log_level\": \"INFO\""
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--sequential" -> sequential = Integer.parseInt(args[++i]);
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--no-results" -> record = false;
                case "--config" -> extraConfig = args[++i];
                case "--acl" -> acl = true;
                case "--follower" -> follower = true;
                case "--tls" -> tls = true;
                case "--pairs" -> pairs = Integer.parseInt(args[++i]);
                case "--warmup-seconds" -> warmupSeconds = Integer.parseInt(args[++i]);
                case "--jfr" -> jfr = Files.createDirectories(Path.of(args[++i]).toAbsolutePath());
                case "--home" -> home = Path.of(args[++i]).toAbsolutePath();
                default -> usage("unknown argument " + args[i]);
            }
        }
        if ((tls || pairs > 0) && !follower) {
            usage("--tls and --pairs need --follower: a dev agent makes no RPC hop to encrypt");
        }
        if (follower && (acl || !extraConfig.isEmpty())) {
            usage("--acl and --config apply to the dev agent only");
        }
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "bench-http");
            t.setDaemon(true);
            return t;
        });
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(pool)
                .connectTimeout(Duration.ofSeconds(5)).build();
        String section;
        try {
            if (pairs > 0) {
                section = pairs(home, http, pairs, Math.min(sequential, 500), clients, seconds, warmupSeconds, jfr);
            } else if (follower) {
                section = follower(home, http, tls, sequential, clients, seconds, jfr);
            } else {
                section = devAgent(home, http, acl, extraConfig, sequential, clients, seconds, jfr);
            }
        } finally {
            pool.shutdownNow();
        }
        System.out.println();
        System.out.print(section);
        if (record) {
            Report.append(root.resolve("bench/RESULTS.md"), section);
            System.out.println("Appended to bench/RESULTS.md");
        }
    }

    private static void usage(String problem) {
        System.err.println(problem);
        System.err.println("usage: RegisterBench [--sequential n] [--clients n] [--seconds s] [--acl] [--no-results]"
                + " [--jfr dir] [--follower [--tls | --pairs n [--warmup-seconds s]]] [--home dir]");
        System.exit(2);
    }

    /** The four phases, after 200 warm-up registers; the warm-up's errors (not counted) go into {@code warmErrors}. */
    private List<Phase> phases(int sequential, int clients, int seconds, List<String> warmErrors)
            throws InterruptedException {
        Phase warm = sequential("warm-up", 200, this::newJob);
        print(warm);
        warmErrors.addAll(warm.firstErrors());
        List<Phase> phases = new ArrayList<>();
        phases.add(sequential("1 client, sequential, new jobs", sequential, this::newJob));
        phases.add(concurrent(clients + " clients, " + seconds + " s, new jobs", clients, seconds, this::newJob));
        phases.add(concurrent(clients + " clients, " + seconds + " s, updates of 100 jobs", clients, seconds,
                n -> body("bench-upd-" + (n % 100))));
        phases.add(sequential("1 client, sequential, updates of 100 jobs", Math.min(sequential, 1000),
                n -> body("bench-upd-" + (n % 100))));
        phases.forEach(RegisterBench::print);
        return phases;
    }

    private static String devAgent(Path home, HttpClient http, boolean acl, String extraConfig, int sequential,
            int clients, int seconds, Path jfr) throws IOException, InterruptedException {
        String loadBefore = Report.loadAverage();
        if (acl) {
            extraConfig = (extraConfig.isEmpty() ? "" : extraConfig + ", ") + "\"acl\": {\"enabled\": true}";
        }
        List<String> warmErrors = new ArrayList<>();
        try (DevAgent agent = DevAgent.start(home, extraConfig, jfrOpts(jfr, "dev").apply(0))) {
            RegisterBench bench = new RegisterBench(http, agent.base, acl ? bootstrap(http, agent.base) : null,
                    () -> StartupBench.cpuMs(agent.pid()));
            System.out.println("agent pid " + agent.pid() + " on " + agent.base + (acl ? ", ACLs on" : ", ACLs off"));
            List<Phase> phases = bench.phases(sequential, clients, seconds, warmErrors);
            String after = "- Agent after the run: " + agent.threads() + " threads, RSS "
                    + mib(StartupBench.statusKb(agent.pid(), "VmRSS")) + "\n";
            List<String> problems = agent.problems(10);
            if (!agent.alive()) {
                throw new IllegalStateException("the agent died during the run" + agent.tail(30));
            }
            String setup = "- One dev agent (default `-dev` config, one Ratis server, fsync'd log"
                    + (acl ? "; `acl { enabled = true }`, every register sent with the bootstrap management token"
                    + " as `X-Nomad-Token`" : "") + "); ";
            return section(acl ? ", ACLs on" : "", setup, after, phases, clients, loadBefore, problems, warmErrors,
                    true);
        }
    }

    /** A three-server cluster; the registers go to a follower, which forwards each to the leader over RPC. */
    private static String follower(Path home, HttpClient http, boolean tls, int sequential, int clients, int seconds,
            Path jfr) throws IOException, InterruptedException {
        String loadBefore = Report.loadAverage();
        List<String> warmErrors = new ArrayList<>();
        try (Cluster cluster = Cluster.start(home, 3, tls, jfrOpts(jfr, tls ? "mtls" : "plain"))) {
            Cluster.Server follower = cluster.follower();
            Cluster.Server leader = cluster.leader();
            System.out.println("leader server" + leader.index() + ", registers to server" + follower.index() + " on "
                    + follower.base() + (tls ? ", mTLS on RPC and Raft" : ", plain RPC and Raft"));
            String probes = tls ? probes(cluster, leader) : "";
            RegisterBench bench = new RegisterBench(http, follower.base(), null, cluster::cpuMs);
            List<Phase> phases = bench.phases(sequential, clients, seconds, warmErrors);
            String after = "- Servers after the run: " + cluster.servers.stream().map(s -> "server" + s.index()
                    + (s == leader ? " (leader)" : s == follower ? " (registers sent here)" : "") + " RSS "
                    + mib(StartupBench.statusKb(cluster.pid(s), "VmRSS")) + ", CPU "
                    + StartupBench.cpuMs(cluster.pid(s)) + " ms since start").collect(Collectors.joining("; "))
                    + "\n";
            List<String> problems = cluster.problems(5);
            if (cluster.leader() != leader) {
                after += "- **The leader changed during the run**: some registers may have gone to the leader.\n";
            }
            if (!cluster.alive()) {
                throw new IllegalStateException("a server died during the run");
            }
            return section(tls ? ", through a follower, mTLS" : ", through a follower", clusterSetup(tls) + probes,
                    after,
                    phases, clients, loadBefore, problems, warmErrors, false);
        }
    }

    /** A TLS handshake with the leader's RPC and Raft ports, as a peer server: what they negotiate. */
    private static String probes(Cluster cluster, Cluster.Server leader) {
        String probes = "Handshakes with the leader as a peer server: RPC port " + TlsHandshakeBench.probe(cluster,
                leader.rpc()) + ", Raft port " + TlsHandshakeBench.probe(cluster, leader.raft()) + ". ";
        System.out.println(probes);
        return probes;
    }

    private static String clusterSetup(boolean tls) {
        return "- Three servers (`bin/caravan agent`, bootstrap_expect = 3, loopback, each its own fsync'd Ratis log);"
                + " every register is sent to a **follower**'s HTTP API, which forwards it over the RPC port to the"
                + " leader, which replicates it to both followers over the Raft port before it answers. "
                + (tls ? "**mTLS**: a CA and a certificate per server made with `caravan tls ca create` /"
                + " `tls cert create -server`, and `tls { rpc = true, verify_server_hostname = true }` on every"
                + " server (RPC and Raft under mutual TLS; the HTTP API stays plain, as in seed 002). "
                : "**Plain**: no `tls` block and no `encrypt` key (RPC and Raft in plain text). ")
                + "CPU figures are the three servers' together. ";
    }

    /** JFR on every server of a cluster, each to its own file in {@code dir} (dumped when the server stops). */
    private static IntFunction<String> jfrOpts(Path dir, String mode) {
        return dir == null ? i -> "" : i -> "-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
                + dir.resolve(mode + "-server" + i + ".jfr");
    }

    /**
     * Plain and mTLS clusters side by side, driven in turn: each pair runs the sequential phase and the concurrent
     * phase on one cluster, then on the other, the order swapped every pair (AB BA AB …) so a drift of the shared
     * machine's speed favours neither. The ratio is taken pair by pair and its median reported.
     */
    private static String pairs(Path home, HttpClient http, int pairs, int sequential, int clients, int seconds,
            int warmupSeconds, Path jfr) throws IOException, InterruptedException {
        String loadBefore = Report.loadAverage();
        List<String> warmErrors = new ArrayList<>();
        List<Phase[]> seq = new ArrayList<>(); // [plain, mtls] per pair
        List<Phase[]> conc = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        List<Map<String, Long>> threadCpu = new ArrayList<>(); // per cluster: CPU by thread during the pairs
        String probes;
        try (Cluster plain = Cluster.start(home, 3, false, jfrOpts(jfr, "plain"));
             Cluster mtls = Cluster.start(home, 3, true, jfrOpts(jfr, "mtls"))) {
            probes = probes(mtls, mtls.leader());
            RegisterBench[] benches = {
                new RegisterBench(http, plain.follower().base(), null, plain::cpuMs),
                new RegisterBench(http, mtls.follower().base(), null, mtls::cpuMs)};
            Cluster[] clusters = {plain, mtls};
            String[] names = {"plain", "mTLS"};
            for (int m = 0; m < 2; m++) {
                // Warm both JITs (servers and harness) before anything counts: in a short run the servers' JIT
                // compilers take more CPU than the registers themselves, and mTLS has more code to compile.
                Phase w = benches[m].sequential("warm-up " + names[m], 200, benches[m]::newJob);
                print(w);
                Phase wc = benches[m].concurrent("warm-up " + names[m] + ", " + clients + " clients", clients,
                        warmupSeconds, benches[m]::newJob);
                print(wc);
                warmErrors.addAll(w.firstErrors());
                warmErrors.addAll(wc.firstErrors());
            }
            List<Map<String, Long>> before = List.of(plain.threadCpuMs(), mtls.threadCpuMs());
            for (int pair = 0; pair < pairs; pair++) {
                Phase[] s = new Phase[2];
                Phase[] c = new Phase[2];
                for (int k = 0; k < 2; k++) {
                    int m = pair % 2 == 0 ? k : 1 - k;
                    RegisterBench b = benches[m];
                    // An election under load can make the follower the leader: send to a follower every time.
                    Cluster.Server leader = clusters[m].leader();
                    b.base = clusters[m].follower().base();
                    s[m] = b.sequential(names[m] + ", 1 client, sequential", sequential, b::newJob);
                    print(s[m]);
                    c[m] = b.concurrent(names[m] + ", " + clients + " clients, " + seconds + " s", clients, seconds,
                            b::newJob);
                    print(c[m]);
                    if (clusters[m].leader() != leader) {
                        notes.add("pair " + (pair + 1) + ", " + names[m] + ": the leader changed during the phases");
                    }
                }
                seq.add(s);
                conc.add(c);
                System.out.printf(Locale.ROOT, "pair %d: %d clients mTLS/plain = %.3f, 1 client = %.3f%n", pair + 1,
                        clients, c[1].rate() / c[0].rate(), s[1].rate() / s[0].rate());
            }
            for (int m = 0; m < 2; m++) {
                Map<String, Long> delta = new TreeMap<>(clusters[m].threadCpuMs());
                before.get(m).forEach((thread, ms) -> delta.merge(thread, -ms, Long::sum));
                threadCpu.add(delta);
            }
            problems.addAll(plain.problems(5).stream().map(l -> "plain " + l).toList());
            problems.addAll(mtls.problems(5).stream().map(l -> "mTLS " + l).toList());
            if (!plain.alive() || !mtls.alive()) {
                throw new IllegalStateException("a server died during the run");
            }
        }
        return pairsSection(seq, conc, clients, seconds, sequential, warmupSeconds, loadBefore, problems, warmErrors,
                notes, probes)
                + threadCpuSection(threadCpu, seq, conc);
    }

    private static String pairsSection(List<Phase[]> seq, List<Phase[]> conc, int clients, int seconds,
            int sequential, int warmupSeconds, String loadBefore, List<String> problems, List<String> warmErrors, List<String> notes,
            String probes) {
        StringBuilder s = new StringBuilder();
        s.append("## ").append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")))
                .append(" UTC — register throughput through a follower, mTLS vs plain, alternating pairs")
                .append(" (RegisterBench --follower --pairs ").append(seq.size()).append(")\n\n");
        s.append("- Machine: ").append(Report.machine()).append('\n');
        s.append("- Load average (1/5/15 min) before: ").append(loadBefore).append(", after: ")
                .append(Report.loadAverage()).append('\n');
        s.append("- Two clusters up side by side, one plain, one with mTLS. ").append(clusterSetup(true)
                .substring(2).replace("**mTLS**:", "The mTLS cluster:")).append("The plain cluster has no `tls` block and no")
                .append(" `encrypt` key. ").append(probes).append('\n');
        s.append("- Each pair: ").append(sequential).append(" sequential registers by 1 client, then ")
                .append(clients).append(" concurrent clients (closed loop) for ").append(seconds)
                .append(" s, on one cluster, then the same on the other; the order is swapped every pair (AB, BA,")
                .append(" …). Both clusters were warmed up first (200 sequential registers and ").append(warmupSeconds)
                .append(" s of ").append(clients)
                .append(" clients each). The ratio is taken pair by pair (the alternation is done inside the")
                .append(" harness).\n");
        s.append("- Harness JVM flags: ").append(DevAgent.harnessFlags()).append("\n\n");
        s.append("| pair | order | ").append(clients).append(" clients plain (/s) | mTLS (/s) | mTLS/plain |")
                .append(" 1 client plain (/s) | mTLS (/s) | mTLS/plain | 1 client p50 plain / mTLS (ms) |")
                .append(" CPU per register, 3 servers, plain / mTLS (ms) | errors |\n")
                .append("|---:|---|---:|---:|---:|---:|---:|---:|---|---|---:|\n");
        List<Double> concRatios = new ArrayList<>();
        List<Double> seqRatios = new ArrayList<>();
        List<Double> cpuRatios = new ArrayList<>();
        for (int i = 0; i < seq.size(); i++) {
            Phase[] q = seq.get(i);
            Phase[] c = conc.get(i);
            concRatios.add(c[1].rate() / c[0].rate());
            seqRatios.add(q[1].rate() / q[0].rate());
            cpuRatios.add(cpuPerRegister(c[1]) / cpuPerRegister(c[0]));
            s.append(String.format(Locale.ROOT,
                    "| %d | %s | %.0f | %.0f | %.3f | %.0f | %.0f | %.3f | %.2f / %.2f | %.2f / %.2f | %d |%n",
                    i + 1, i % 2 == 0 ? "plain, mTLS" : "mTLS, plain", c[0].rate(), c[1].rate(),
                    concRatios.get(i), q[0].rate(), q[1].rate(), seqRatios.get(i), q[0].pct(0.5), q[1].pct(0.5),
                    cpuPerRegister(c[0]), cpuPerRegister(c[1]),
                    q[0].errors() + q[1].errors() + c[0].errors() + c[1].errors()));
        }
        double concMedian = median(concRatios);
        double loss = 1 - concMedian;
        s.append('\n');
        s.append(String.format(Locale.ROOT, "- Median ratio mTLS/plain over %d pairs: %d clients %.3f (min %.3f, max"
                        + " %.3f), 1 client %.3f; servers' CPU per register (%d clients) %.3f.%n", seq.size(), clients,
                concMedian, concRatios.stream().mapToDouble(d -> d).min().orElse(Double.NaN),
                concRatios.stream().mapToDouble(d -> d).max().orElse(Double.NaN), median(seqRatios), clients,
                median(cpuRatios)));
        s.append(String.format(Locale.ROOT, "- Target ≤ %.0f %% throughput loss with mTLS (%d clients, median of the"
                        + " pairs): %s — %s%n", TARGET_TLS_LOSS * 100, clients, loss >= 0
                        ? String.format(Locale.ROOT, "%.1f %% loss", loss * 100)
                        : String.format(Locale.ROOT, "no loss (mTLS %.1f %% faster)", -loss * 100),
                loss <= TARGET_TLS_LOSS ? "**met**" : "**not met**"));
        for (String n : notes) {
            s.append("- Election: ").append(n).append(" (the registers of the next phase went to a follower again)\n");
        }
        for (String e : warmErrors) {
            s.append("- Warm-up error (not counted above): `").append(e).append("`\n");
        }
        for (List<Phase[]> list : List.of(seq, conc)) {
            for (Phase[] ps : list) {
                for (Phase p : ps) {
                    for (String e : p.firstErrors()) {
                        s.append("- Error (").append(p.name()).append("): `").append(e).append("`\n");
                    }
                }
            }
        }
        appendProblems(s, problems);
        return s.append('\n').toString();
    }

    /** The servers' CPU during the pairs by thread, per register, plain against mTLS: where the difference goes. */
    private static String threadCpuSection(List<Map<String, Long>> threadCpu, List<Phase[]> seq, List<Phase[]> conc) {
        long[] registers = new long[2];
        for (int m = 0; m < 2; m++) {
            for (int i = 0; i < seq.size(); i++) {
                registers[m] += seq.get(i)[m].latNs().length + conc.get(i)[m].latNs().length;
            }
        }
        Set<String> threads = new TreeSet<>(threadCpu.get(0).keySet());
        threads.addAll(threadCpu.get(1).keySet());
        double[] total = new double[2];
        double[] jit = new double[2];
        List<double[]> rows = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (String t : threads) {
            double[] r = new double[2];
            for (int m = 0; m < 2; m++) {
                r[m] = (double) threadCpu.get(m).getOrDefault(t, 0L) / Math.max(1, registers[m]);
                total[m] += r[m];
                jit[m] += t.contains("Compiler") ? r[m] : 0;
            }
            names.add(t);
            rows.add(r);
        }
        StringBuilder s = new StringBuilder("Where the servers' CPU went during the pairs (all three servers of each")
                .append(" cluster, by thread name from `/proc/<pid>/task`, digits and ids folded into `#`; ms per")
                .append(" register; threads with under 0.05 ms in both left out):\n\n")
                .append("| thread | plain | mTLS | mTLS − plain |\n|---|---:|---:|---:|\n");
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            order.add(i);
        }
        order.sort((a, b) -> Double.compare(Math.abs(rows.get(b)[1] - rows.get(b)[0]),
                Math.abs(rows.get(a)[1] - rows.get(a)[0])));
        for (int i : order) {
            double[] r = rows.get(i);
            if (Math.max(r[0], r[1]) >= 0.05) {
                s.append(String.format(Locale.ROOT, "| `%s` | %.2f | %.2f | %+.2f |%n", names.get(i), r[0], r[1],
                        r[1] - r[0]));
            }
        }
        s.append(String.format(Locale.ROOT, "| **all threads** (%d and %d registers) | %.2f | %.2f | %+.2f |%n",
                registers[0], registers[1], total[0], total[1], total[1] - total[0]));
        s.append(String.format(Locale.ROOT, "| **all but the JIT compilers** | %.2f | %.2f | %+.2f |%n%n",
                total[0] - jit[0], total[1] - jit[1], total[1] - jit[1] - total[0] + jit[0]));
        return s.toString();
    }

    private static double cpuPerRegister(Phase p) {
        return (double) p.agentCpuMs() / Math.max(1, p.latNs().length);
    }

    private static double median(List<Double> values) {
        List<Double> v = values.stream().sorted().toList();
        int n = v.size();
        return n == 0 ? Double.NaN : n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    }

    private static String mib(long kb) {
        return String.format(Locale.ROOT, "%.1f MiB", kb / 1024.0);
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

    private Phase sequential(String name, int count, LongFunction<String> bodies) throws InterruptedException {
        long[] lat = new long[count];
        long errors = 0;
        List<String> first = new ArrayList<>();
        long cpu0 = serverCpuMs.getAsLong();
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
        return new Phase(name, 1, lat, wall, errors, first, serverCpuMs.getAsLong() - cpu0, clientCpuMs() - client0);
    }

    /** A closed loop: each of {@code clients} slots sends its next register as soon as the previous one answered. */
    private Phase concurrent(String name, int clients, int seconds, LongFunction<String> bodies)
            throws InterruptedException {
        ConcurrentLinkedQueue<Long> lat = new ConcurrentLinkedQueue<>();
        AtomicLong errors = new AtomicLong();
        ConcurrentLinkedQueue<String> first = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(clients);
        long cpu0 = serverCpuMs.getAsLong();
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
                serverCpuMs.getAsLong() - cpu0, clientCpuMs() - client0);
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

    private static String section(String mode, String setup, String after, List<Phase> phases, int clients,
            String loadBefore, List<String> problems, List<String> warmErrors, boolean devTargets) {
        StringBuilder s = new StringBuilder();
        s.append("## ").append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")))
                .append(" UTC — job register throughput and latency (RegisterBench").append(mode).append(")\n\n");
        s.append("- Machine: ").append(Report.machine()).append('\n');
        s.append("- Load average (1/5/15 min) before: ").append(loadBefore).append(", after: ")
                .append(Report.loadAverage()).append('\n');
        s.append(setup).append("`PUT /v1/jobs` with a one-task")
                .append(" `raw_exec` job; 200 warm-up registers first. A register counts as an error unless it")
                .append(" answers 200 with an `EvalID`.\n");
        s.append("- Load generator: one `java.net.http.HttpClient` (HTTP/1.1, keep-alive) with a fixed pool of 2")
                .append(" threads; the ").append(clients).append(" concurrent clients are ").append(clients)
                .append(" outstanding `sendAsync` requests in a closed loop (the next one is sent when the previous")
                .append(" answers). Latency is request sent → response body read, as the client sees it.\n");
        s.append("- Harness JVM flags: ").append(DevAgent.harnessFlags()).append('\n');
        s.append(after).append('\n');
        s.append("| phase | registers | errors | throughput (/s) | p50 (ms) | p90 (ms) | p99 (ms) | max (ms) |")
                .append(" agent CPU (ms) | agent CPU per register (ms) | harness CPU (ms) |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Phase p : phases) {
            s.append(String.format(Locale.ROOT, "| %s | %d | %d | %.0f | %.2f | %.2f | %.2f | %.1f | %d | %.2f | %d |%n",
                    p.name(), p.latNs().length, p.errors(), p.rate(), p.pct(0.5), p.pct(0.9), p.pct(0.99),
                    p.pct(1.0), p.agentCpuMs(), cpuPerRegister(p), p.clientCpuMs()));
        }
        Phase seq = phases.get(0);
        Phase conc = phases.get(1);
        s.append('\n');
        if (devTargets) {
            s.append(String.format(Locale.ROOT, "- Target p50 ≤ %.0f ms with 1 client (new jobs): %.2f ms — %s%n",
                    TARGET_P50_MS, seq.pct(0.5), seq.pct(0.5) <= TARGET_P50_MS ? "**met**" : "**not met**"));
            s.append(String.format(Locale.ROOT, "- Target ≥ %.0f registers/s with %d clients (new jobs): %.0f/s — %s%n",
                    TARGET_RATE, conc.clients(), conc.rate(), conc.rate() >= TARGET_RATE && conc.errors() == 0
                            ? "**met**" : "**not met**"));
        }
        double perRegister = cpuPerRegister(conc);
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
        appendProblems(s, problems);
        return s.append('\n').toString();
    }

    private static void appendProblems(StringBuilder s, List<String> problems) {
        if (problems.isEmpty()) {
            s.append("- Agent log: no WARN/ERROR lines or exceptions.\n");
        } else {
            s.append("- Agent log, first WARN/ERROR/exception lines:\n\n```\n").append(String.join("\n", problems))
                    .append("\n```\n");
        }
    }
}
