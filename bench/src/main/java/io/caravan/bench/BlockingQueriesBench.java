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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Many concurrent blocking queries on {@code GET /v1/jobs?index=N&wait=...} against one dev agent (issue target:
 * 10,000 of them cost the agent &lt; 64 threads and &lt; 256 MB), and how long one job register takes to wake them
 * all. The queries are {@code sendAsync} requests on one {@link HttpClient} (HTTP/1.1: one connection each) whose
 * executor is a fixed pool of 2 threads. They are opened in batches (the agent's accept backlog is small), then the
 * harness waits until the agent holds that many ESTABLISHED connections on its HTTP port ({@code /proc/net/tcp*})
 * plus a settle time, samples the agent's threads, RSS, open files and heap ({@code jcmd GC.heap_info}), registers
 * one job, and times every query's completion; each must answer 200 with an {@code X-Nomad-Index} above N.
 *
 * With {@code --raw} the queries go through {@link RawHttpQueries} (one NIO selector thread) instead: the JDK
 * client burns ~1 ms of harness CPU per response with 10,000 connections open, which on 2 cores makes the harness,
 * not the agent, set the wake-all time. The agent-side numbers (threads, RSS, heap) do not depend on the client.
 *
 * <pre>java -cp bench/target/classes io.caravan.bench.BlockingQueriesBench [queries, default 10000] [--raw]
 *     [--no-results]</pre>
 */
public final class BlockingQueriesBench {
    static final long TARGET_THREADS = 64;
    static final long TARGET_MB = 256;
    private static final int BATCH = 100;
    private static final long BATCH_PAUSE_MS = 50;
    private static final Duration SETTLE = Duration.ofSeconds(3);
    private static final Duration OPEN_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration WAKE_TIMEOUT = Duration.ofSeconds(60);
    /** Far longer than the run, so no query returns because its wait ran out (Nomad caps wait at 10 min). */
    private static final String WAIT = "5m";

    record Sample(long threads, long rssKb, long hwmKb, long fds, long heapUsedKb, String heapInfo) {}

    public static void main(String[] args) throws Exception {
        int count = 10_000;
        boolean record = true;
        boolean raw = false;
        Path root = Paths.get("").toAbsolutePath();
        Path home = root.resolve("distribution/assembly/target/caravan");
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--no-results")) {
                record = false;
            } else if (a.equals("--raw")) {
                raw = true;
            } else if (a.equals("--home") && i + 1 < args.length) {
                home = Paths.get(args[++i]).toAbsolutePath();   // another Caravan home, e.g. main's, to compare
            } else {
                count = Integer.parseInt(a);
            }
        }
        long nofile = nofileLimit();
        System.out.println("queries " + count + ", harness open-files limit " + nofile);
        if (nofile > 0 && nofile < count + 200) {
            System.err.println("warning: open-files limit " + nofile + " is below " + count + " connections");
        }
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "bench-http");
            t.setDaemon(true);
            return t;
        });
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(pool)
                .connectTimeout(Duration.ofSeconds(30)).build();
        String loadBefore = Report.loadAverage();
        StringBuilder s = new StringBuilder();
        try (DevAgent agent = DevAgent.start(home, "")) {
            long pid = agent.pid();
            System.out.println("agent pid " + pid + " on " + agent.base + ", agent open-files limit "
                    + agentNofile(pid));
            HttpRequest register = HttpRequest.newBuilder(URI.create(agent.base + "/v1/jobs"))
                    .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                    // Stopped: a running job's allocations (a service task that exits and restarts) would move the
                    // jobs index while the queries wait, and they would return without the new job.
                    .PUT(HttpRequest.BodyPublishers.ofString(RegisterBench.body("bench-0")
                            .replace("{\"Job\":{", "{\"Job\":{\"Stop\":true,"))).build();
            // /v1/agent/health answering 200 should mean Raft has a leader; a first write has been seen to fail
            // with 500 "No cluster leader" anyway, so retry (bounded) and report it.
            long firstWrite0 = System.nanoTime();
            int leaderRetries = 0;
            HttpResponse<String> first = http.send(register, HttpResponse.BodyHandlers.ofString());
            while (first.statusCode() != 200 && System.nanoTime() - firstWrite0 < TimeUnit.SECONDS.toNanos(30)) {
                leaderRetries++;
                if (leaderRetries == 1) {
                    System.out.println("first register after health 200 answered " + first.statusCode() + ": "
                            + first.body() + " (retrying)");
                }
                Thread.sleep(20);
                first = http.send(register, HttpResponse.BodyHandlers.ofString());
            }
            check(first);
            long firstWriteMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - firstWrite0);
            String firstWriteNote = leaderRetries == 0 ? ""
                    : "- **Anomaly:** the first register after `/v1/agent/health` answered 200 failed (" + leaderRetries
                    + " retries, e.g. 500 `No cluster leader`); it succeeded " + firstWriteMs + " ms after health.\n";
            HttpResponse<String> list = http.send(HttpRequest.newBuilder(URI.create(agent.base + "/v1/jobs"))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            check(list);
            long settled = list.headers().firstValueAsLong("X-Nomad-Index").orElseThrow();
            // The job's evaluation then moves the jobs index again (its status): N is the index once it has stayed
            // put for a 2 s blocking query, else every query would return before the write, without the new job.
            long settleUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < settleUntil) {
                HttpResponse<String> again = http.send(HttpRequest.newBuilder(
                        URI.create(agent.base + "/v1/jobs?index=" + settled + "&wait=2s")).timeout(Duration.ofSeconds(30))
                        .build(), HttpResponse.BodyHandlers.ofString());
                check(again);
                long moved = again.headers().firstValueAsLong("X-Nomad-Index").orElseThrow();
                if (moved == settled) {
                    break;
                }
                settled = moved;
            }
            long n = settled;
            Sample idle = sample(agent, true);
            System.out.println("index N=" + n + "; idle agent: " + idle.threads() + " threads, RSS "
                    + mib(idle.rssKb()) + " MiB, heap used " + mib(idle.heapUsedKb()) + " MiB");

            // Peak threads while the queries arrive and wake, sampled every 100 ms.
            AtomicLong peakThreads = new AtomicLong(idle.threads());
            Thread sampler = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    peakThreads.accumulateAndGet(agent.threads(), Math::max);
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "bench-sampler");
            sampler.setDaemon(true);
            sampler.start();

            URI query = URI.create(agent.base + "/v1/jobs?index=" + n + "&wait=" + WAIT);
            AtomicLongArray doneAt = new AtomicLongArray(count);
            AtomicLong early = new AtomicLong();
            AtomicLong woke = new AtomicLong();
            AtomicLong writeSent = new AtomicLong(Long.MAX_VALUE);
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            AtomicLong failed = new AtomicLong();
            CountDownLatch remaining = new CountDownLatch(count);
            RawHttpQueries.Done onDone = (q, status, index, body, error) -> {
                long now = System.nanoTime();
                doneAt.set(q, now);
                if (now < writeSent.get()) {
                    early.incrementAndGet();
                }
                String why = error != null ? error
                        : status != 200 ? "status " + status + ": " + body
                        : index <= n ? "index " + index + " ≤ " + n
                        : !body.contains("\"bench-wake\"") ? "body lacks the new job" : null;
                if (why != null) {
                    failed.incrementAndGet();
                    if (failures.size() < 5) {
                        failures.add("query " + q + ": " + why);
                    }
                } else {
                    woke.incrementAndGet();
                }
                remaining.countDown();
            };
            List<CompletableFuture<?>> futures = new ArrayList<>(raw ? 0 : count);
            RawHttpQueries rawClient = null;
            long open0 = System.nanoTime();
            if (raw) {
                rawClient = new RawHttpQueries(agent.httpPort, query.getRawPath() + "?" + query.getRawQuery(), count,
                        BATCH, BATCH_PAUSE_MS, 600, onDone);
                Thread t = new Thread(rawClient, "bench-raw-http");
                t.setDaemon(true);
                t.start();
            } else {
                for (int i = 0; i < count; i++) {
                    final int q = i;
                    HttpRequest req = HttpRequest.newBuilder(query).timeout(Duration.ofMinutes(6)).build();
                    futures.add(http.sendAsync(req, HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) ->
                            onDone.done(q, r == null ? -1 : r.statusCode(),
                                    r == null ? -1 : r.headers().firstValueAsLong("X-Nomad-Index").orElse(-1),
                                    r == null ? null : r.body(), e == null ? null : e.toString())));
                    if ((i + 1) % BATCH == 0) {
                        Thread.sleep(BATCH_PAUSE_MS);
                    }
                }
            }
            // Wait (bounded) until the agent holds them all, or until nothing is left to arrive.
            long deadline = System.nanoTime() + OPEN_TIMEOUT.toNanos();
            long established = 0;
            while (System.nanoTime() < deadline) {
                established = establishedOn(agent.httpPort);
                if (established >= count || established + early.get() >= count) {
                    break;
                }
                Thread.sleep(200);
            }
            long openMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - open0);
            System.out.println(established + " connections established on the agent's port after " + openMs
                    + " ms; " + early.get() + " queries already completed");
            Thread.sleep(SETTLE.toMillis());
            established = establishedOn(agent.httpPort);
            Sample loaded = sample(agent, false); // threads before jcmd attaches (it adds a thread)
            Sample loadedHeap = sample(agent, true);
            long earlyBeforeWrite = early.get();
            System.out.println("in flight: " + established + " connections; agent " + loaded.threads()
                    + " threads (peak " + peakThreads.get() + "), RSS " + mib(loaded.rssKb()) + " MiB, fds "
                    + loaded.fds() + ", heap used " + mib(loadedHeap.heapUsedKb()) + " MiB; completed early "
                    + earlyBeforeWrite);

            HttpRequest wake = HttpRequest.newBuilder(URI.create(agent.base + "/v1/jobs"))
                    .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(RegisterBench.body("bench-wake"))).build();
            String threadGroups = threadGroups(agent);
            long agentCpu0 = StartupBench.cpuMs(pid);
            long harnessCpu0 = harnessCpuMs();
            long t0 = System.nanoTime();
            writeSent.set(t0);
            HttpResponse<String> wr = http.send(wake, HttpResponse.BodyHandlers.ofString());
            long writeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            check(wr);
            boolean allDone = remaining.await(WAKE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            sampler.interrupt();
            long agentCpuWake = StartupBench.cpuMs(pid) - agentCpu0;
            long harnessCpuWake = harnessCpuMs() - harnessCpu0;
            long[] after = new long[count];
            int completed = 0;
            for (int i = 0; i < count; i++) {
                long d = doneAt.get(i);
                if (d != 0 && d >= t0) {
                    after[completed++] = d - t0;
                }
            }
            long[] wakeNs = Arrays.copyOf(after, completed);
            Arrays.sort(wakeNs);
            Sample end = sample(agent, false);
            List<String> problems = agent.problems(10);
            long notDone = remaining.getCount();
            System.out.printf(Locale.ROOT, "write took %d ms; %d woke after it (ok %d), %d failed, %d not done"
                    + " after %d s; wake-all %.1f ms, p50 %.1f ms, p99 %.1f ms%n", writeMs, completed, woke.get(),
                    failed.get(), notDone, WAKE_TIMEOUT.toSeconds(), pctMs(wakeNs, 1.0), pctMs(wakeNs, 0.5),
                    pctMs(wakeNs, 0.99));
            failures.forEach(f -> System.out.println("  failure: " + f));
            System.out.println("CPU from the write until all woke: agent " + agentCpuWake + " ms, harness "
                    + harnessCpuWake + " ms; agent threads by name: " + threadGroups);

            s.append("## ").append(ZonedDateTime.now(ZoneOffset.UTC)
                            .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")))
                    .append(" UTC — ").append(String.format(Locale.ROOT, "%,d", count))
                    .append(" concurrent blocking queries (BlockingQueriesBench").append(raw ? ", raw NIO client" : "")
                    .append(")\n\n");
            s.append("- Machine: ").append(Report.machine()).append('\n');
            s.append("- Load average (1/5/15 min) before: ").append(loadBefore).append(", after: ")
                    .append(Report.loadAverage()).append('\n');
            s.append("- One dev agent (default `-dev` config). One job registered (index N = ").append(n)
                    .append("), then ").append(count).append(" × `GET /v1/jobs?index=").append(n).append("&wait=")
                    .append(WAIT).append("` via ").append(raw
                            ? "the harness's raw NIO client (`--raw`: one selector thread, HTTP/1.1, one connection"
                            + " each)" : "`HttpClient.sendAsync` (HTTP/1.1, one connection each, 2 executor threads)")
                    .append(", opened ").append(BATCH).append(" per ").append(BATCH_PAUSE_MS)
                    .append(" ms; open-files limit ").append(nofile).append(" (harness), ").append(agentNofile(pid))
                    .append(" (agent).\n");
            s.append("- Harness JVM flags: ").append(DevAgent.harnessFlags()).append('\n');
            s.append(firstWriteNote);
            s.append("- In flight: ").append(established).append(" ESTABLISHED connections on the agent's HTTP port ")
                    .append(SETTLE.toSeconds()).append(" s after the last one connected (").append(openMs)
                    .append(" ms to open them all); ").append(earlyBeforeWrite)
                    .append(" queries had returned before the write.\n\n");
            s.append("| agent | idle (before the queries) | with the queries in flight | target | met |\n")
                    .append("|---|---:|---:|---|---|\n");
            s.append(String.format(Locale.ROOT, "| threads (`/proc/<pid>/status`) | %d | %d (peak seen %d) | < %d | %s |%n",
                    idle.threads(), loaded.threads(), peakThreads.get(), TARGET_THREADS,
                    peakThreads.get() < TARGET_THREADS ? "**yes**" : "**no**"));
            s.append(String.format(Locale.ROOT, "| RSS (MiB) | %s | %s (VmHWM %s) | < %d MB | %s |%n",
                    mib(idle.rssKb()), mib(loaded.rssKb()), mib(loaded.hwmKb()), TARGET_MB,
                    loaded.hwmKb() * 1024 < TARGET_MB * 1_000_000L ? "**yes**" : "**no**"));
            s.append(String.format(Locale.ROOT, "| heap used, `jcmd GC.heap_info` (MiB) | %s | %s | | |%n",
                    mib(idle.heapUsedKb()), mib(loadedHeap.heapUsedKb())));
            s.append(String.format(Locale.ROOT, "| open file descriptors | %d | %d | | |%n", idle.fds(), loaded.fds()));
            s.append('\n');
            s.append(String.format(Locale.ROOT, "- One register (`PUT /v1/jobs`) took %d ms; after it was sent,"
                            + " %d queries completed within %d s: %d answered 200 with `X-Nomad-Index` > N and the"
                            + " new job, %d failed, %d never completed.%n", writeMs, completed,
                    WAKE_TIMEOUT.toSeconds(), woke.get(), failed.get(), notDone));
            s.append(String.format(Locale.ROOT, "- Wake time after the write was sent: p50 %.1f ms, p90 %.1f ms,"
                            + " p99 %.1f ms, **all %s**: %.1f ms%n", pctMs(wakeNs, 0.5), pctMs(wakeNs, 0.9),
                    pctMs(wakeNs, 0.99), allDone && notDone == 0 ? "woken" : "NOT woken", pctMs(wakeNs, 1.0)));
            s.append(String.format(Locale.ROOT, "- CPU used from the write until the last query completed: agent"
                    + " %d ms, harness %d ms (user+sys; 2 cores give at most %.0f ms in that time).%n", agentCpuWake,
                    harnessCpuWake, 2 * pctMs(wakeNs, 1.0)));
            s.append(String.format(Locale.ROOT, "- Agent after the wake: %d threads, RSS %s MiB.%n", end.threads(),
                    mib(end.rssKb())));
            s.append("- Agent threads by name with the queries in flight (`jcmd Thread.print`, digits folded): ")
                    .append(threadGroups).append('\n');
            for (String f : failures) {
                s.append("- Failure: `").append(f.replace('\n', ' ')).append("`\n");
            }
            if (problems.isEmpty()) {
                s.append("- Agent log: no WARN/ERROR lines or exceptions.\n");
            } else {
                s.append("- Agent log, first WARN/ERROR/exception lines:\n\n```\n")
                        .append(String.join("\n", problems)).append("\n```\n");
            }
            s.append("\n<details><summary>GC.heap_info with the queries in flight</summary>\n\n```\n")
                    .append(loadedHeap.heapInfo()).append("\n```\n</details>\n\n");
            // Drop the connections before SIGTERM so the agent's shutdown is not timed against 10,000 sockets.
            futures.forEach(f -> f.cancel(true));
            if (rawClient != null) {
                rawClient.stop();
            }
        } finally {
            pool.shutdownNow();
        }
        System.out.println();
        System.out.print(s);
        if (record) {
            Report.append(root.resolve("bench/RESULTS.md"), s.toString());
            System.out.println("Appended to bench/RESULTS.md");
        }
        System.exit(0); // the HttpClient's selector thread and any leftover connections must not keep us alive
    }

    private static long harnessCpuMs() {
        return ProcessHandle.current().info().totalCpuDuration().map(Duration::toMillis).orElse(-1L);
    }

    /** Thread names from {@code jcmd PID Thread.print}, digits folded to {@code #}, counted, most frequent first. */
    static String threadGroups(DevAgent agent) {
        try {
            Process p = new ProcessBuilder("jcmd", Long.toString(agent.pid()), "Thread.print")
                    .redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes(); // jcmd ends on its own; bounded below
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "(jcmd timed out)";
            }
            java.util.Map<String, Long> counts = new String(out, java.nio.charset.StandardCharsets.UTF_8).lines()
                    .filter(l -> l.startsWith("\""))
                    .map(l -> l.substring(1, l.indexOf('"', 1))
                            .replaceAll("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
                                    "<uuid>")
                            .replaceAll("group-[0-9A-F]{6,}", "group-<id>").replaceAll("/tmp/[^/]+/[^/]+", "<tmp>")
                            .replaceAll("[0-9]+", "#"))
                    .collect(java.util.stream.Collectors.groupingBy(x -> x, java.util.stream.Collectors.counting()));
            return counts.entrySet().stream().sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed())
                    .limit(12).map(e -> "`" + e.getKey() + "` × " + e.getValue())
                    .collect(java.util.stream.Collectors.joining(", "));
        } catch (IOException | RuntimeException e) {
            return "(jcmd Thread.print failed: " + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(interrupted)";
        }
    }

    private static void check(HttpResponse<String> r) {
        if (r.statusCode() != 200) {
            throw new IllegalStateException(r.uri() + " answered " + r.statusCode() + ": " + r.body());
        }
    }

    private static Sample sample(DevAgent agent, boolean heap) {
        long pid = agent.pid();
        String info = heap ? agent.heapInfo() : "";
        return new Sample(agent.threads(), StartupBench.statusKb(pid, "VmRSS"), StartupBench.statusKb(pid, "VmHWM"),
                agent.openFds(), heap ? DevAgent.heapUsedKb(info) : -1, info);
    }

    /** ESTABLISHED sockets whose local port is the agent's HTTP port: the agent's side of each connection. */
    static long establishedOn(int port) {
        String hexPort = String.format(":%04X", port);
        long n = 0;
        for (String file : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try (var lines = Files.lines(Path.of(file))) {
                n += lines.skip(1).map(String::trim).filter(l -> {
                    String[] f = l.split("\\s+");
                    return f.length > 3 && f[1].endsWith(hexPort) && f[3].equals("01");
                }).count();
            } catch (IOException | java.io.UncheckedIOException e) {
                // no IPv6, say
            }
        }
        return n;
    }

    private static long nofileLimit() {
        return limit("/proc/self/limits");
    }

    private static long agentNofile(long pid) {
        return limit("/proc/" + pid + "/limits");
    }

    private static long limit(String file) {
        try {
            for (String line : Files.readAllLines(Path.of(file))) {
                if (line.startsWith("Max open files")) {
                    return Long.parseLong(line.substring("Max open files".length()).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // unknown
        }
        return -1;
    }

    private static double pctMs(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(sorted.length * p) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
    }

    private static String mib(long kb) {
        return kb < 0 ? "-" : String.format(Locale.ROOT, "%.1f", kb / 1024.0);
    }
}
