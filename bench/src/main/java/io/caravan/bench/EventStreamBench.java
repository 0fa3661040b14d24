package io.caravan.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Event stream fan-out (issue 18 "Speed"): N subscribers of {@code GET /v1/event/stream?topic=Job:*} on one dev agent
 * while jobs are registered at a target rate; measures the delivery lag of each {@code JobRegistered} event to each
 * subscriber (from the register being sent to the subscriber having the event's line, so it includes the Raft commit),
 * how many deliveries arrived, the agent's CPU and threads. The jobs are registered stopped ({@code Stop: true}), so
 * the dev agent's client runs nothing and the scheduler only confirms there is nothing to place.
 *
 * <p>The subscribers are plain sockets on one NIO selector thread of the harness (HTTP/1.0, so the body is the raw
 * NDJSON until the agent closes): the JDK {@code HttpClient} costs too much CPU per connection for a thousand
 * streams on two cores. Registers are {@code sendAsync} on one {@link HttpClient} with a 2-thread executor, open
 * loop at the target rate with at most 64 outstanding.
 *
 * <pre>java -cp bench/target/classes io.caravan.bench.EventStreamBench [--subscribers 1000] [--rate 1000]
 *     [--seconds 10] [--buffer 100] [--no-results] [--home dir]</pre>
 */
public final class EventStreamBench {
    private static final int OUTSTANDING = 64;
    private static final byte[] MARKER = "\"Type\":\"JobRegistered\",\"Key\":\"ev-".getBytes(StandardCharsets.US_ASCII);

    public static void main(String[] args) throws Exception {
        int subscribers = 1000;
        int rate = 1000;
        int seconds = 10;
        int buffer = 100; // Nomad's default event_buffer_size
        boolean record = true;
        Path root = Paths.get("").toAbsolutePath();
        Path home = root.resolve("distribution/assembly/target/caravan");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--subscribers" -> subscribers = Integer.parseInt(args[++i]);
                case "--rate" -> rate = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--buffer" -> buffer = Integer.parseInt(args[++i]);
                case "--no-results" -> record = false;
                case "--home" -> home = Path.of(args[++i]).toAbsolutePath();
                default -> {
                    System.err.println("unknown argument " + args[i] + "; usage: EventStreamBench [--subscribers n]"
                            + " [--rate n] [--seconds n] [--buffer n] [--no-results] [--home dir]");
                    System.exit(2);
                }
            }
        }
        int jobs = rate * seconds;
        String loadBefore = Report.loadAverage();
        try (DevAgent agent = DevAgent.start(home, "\"log_level\": \"WARN\", \"server\": {\"event_buffer_size\": "
                + buffer + "}")) {
            Subscribers subs = new Subscribers(agent.httpPort, subscribers, jobs);
            Thread reader = new Thread(subs, "bench-subscribers");
            reader.setDaemon(true);
            reader.start();
            subs.awaitOpen(Duration.ofSeconds(60));
            Thread.sleep(2000); // let every subscription start
            long threadsIdle = agent.threads();
            long cpu0 = StartupBench.cpuMs(agent.pid());
            long harness0 = selfCpuMs();
            Driver driver = new Driver(agent.base, rate, jobs, subs.sentAt);
            long start = System.nanoTime();
            driver.run();
            long registeredNs = System.nanoTime() - start;
            long threadsBusy = agent.threads();
            subs.awaitDelivered(Duration.ofSeconds(30));
            long cpu1 = StartupBench.cpuMs(agent.pid());
            long harness1 = selfCpuMs();
            subs.stop();
            reader.join(5000);
            String section = section(subscribers, rate, seconds, buffer, jobs, driver, registeredNs, subs, cpu1 - cpu0,
                    harness1 - harness0, threadsIdle, threadsBusy, loadBefore, Report.loadAverage());
            System.out.print(section);
            if (record) {
                Report.append(root.resolve("bench/RESULTS.md"), section);
            }
        }
    }

    private static long selfCpuMs() {
        return StartupBench.cpuMs(ProcessHandle.current().pid());
    }

    /** Registers {@code jobs} stopped jobs at {@code rate}/s, at most {@link #OUTSTANDING} in flight. */
    static final class Driver {
        private final String base;
        private final int rate;
        private final int jobs;
        private final AtomicLongArray sentAt;
        final AtomicLong errors = new AtomicLong();
        final long[] latencyNs;
        volatile String firstError;

        Driver(String base, int rate, int jobs, AtomicLongArray sentAt) {
            this.base = base;
            this.rate = rate;
            this.jobs = jobs;
            this.sentAt = sentAt;
            this.latencyNs = new long[jobs];
        }

        void run() throws InterruptedException {
            ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
                Thread t = new Thread(r, "bench-http");
                t.setDaemon(true);
                return t;
            });
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(pool).build();
            Semaphore slots = new Semaphore(OUTSTANDING);
            long start = System.nanoTime();
            long interval = TimeUnit.SECONDS.toNanos(1) / rate;
            for (int n = 0; n < jobs; n++) {
                long due = start + n * interval;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                slots.acquire();
                int job = n;
                String body = "{\"Job\":{\"ID\":\"ev-" + n + "\",\"Stop\":true,\"TaskGroups\":[{\"Name\":\"g\","
                        + "\"Tasks\":[{\"Name\":\"t\",\"Driver\":\"raw_exec\",\"Config\":{\"command\":\"/bin/true\"}}]}]}}";
                HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/v1/jobs"))
                        .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(body)).build();
                long sent = System.nanoTime();
                sentAt.set(job, sent);
                http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
                    latencyNs[job] = System.nanoTime() - sent;
                    if (e != null || r.statusCode() != 200) {
                        errors.incrementAndGet();
                        if (firstError == null) {
                            firstError = e != null ? e.toString() : r.statusCode() + " " + r.body();
                        }
                    }
                    slots.release();
                });
            }
            slots.acquire(OUTSTANDING); // every register answered
            pool.shutdown();
        }
    }

    /** N streaming GETs on one selector; counts and times each subscriber's JobRegistered events of this run. */
    static final class Subscribers implements Runnable {
        final AtomicLongArray sentAt;
        private final InetSocketAddress address;
        private final byte[] request;
        private final int count;
        private final int jobs;
        private final Conn[] conns;
        /** Lags in ns, appended by the selector thread only. */
        private long[] lags = new long[1 << 16];
        private int lagCount;
        private volatile long delivered;
        private volatile int open;
        private volatile int closed;
        private volatile String closeText = "";
        private volatile boolean stop;

        private static final class Conn {
            final ByteBuffer out;
            final byte[] line = new byte[64 * 1024];
            int lineLength;
            boolean inBody;
            int headerMatch;
            long received;

            Conn(byte[] request) {
                this.out = ByteBuffer.wrap(request);
            }
        }

        Subscribers(int port, int count, int jobs) {
            this.address = new InetSocketAddress("127.0.0.1", port);
            this.request = ("GET /v1/event/stream?topic=Job:* HTTP/1.0\r\nHost: 127.0.0.1:" + port + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            this.count = count;
            this.jobs = jobs;
            this.conns = new Conn[count];
            this.sentAt = new AtomicLongArray(jobs);
        }

        @Override
        public void run() {
            ByteBuffer in = ByteBuffer.allocateDirect(256 * 1024);
            byte[] chunk = new byte[256 * 1024];
            try (Selector selector = Selector.open()) {
                for (int i = 0; i < count; i++) {
                    SocketChannel ch = SocketChannel.open();
                    ch.configureBlocking(false);
                    ch.connect(address);
                    conns[i] = new Conn(request);
                    ch.register(selector, SelectionKey.OP_CONNECT, conns[i]);
                    if (i % 100 == 99) {
                        drain(selector, in, chunk, 50); // the agent's accept backlog is small
                    }
                }
                while (!stop) {
                    drain(selector, in, chunk, 10);
                }
                for (SelectionKey k : selector.keys()) {
                    k.channel().close();
                }
            } catch (IOException e) {
                closeText = "harness: " + e;
            }
        }

        private void drain(Selector selector, ByteBuffer in, byte[] chunk, long millis) throws IOException {
            selector.select(millis);
            var keys = selector.selectedKeys().iterator();
            while (keys.hasNext()) {
                SelectionKey key = keys.next();
                keys.remove();
                Conn c = (Conn) key.attachment();
                SocketChannel ch = (SocketChannel) key.channel();
                try {
                    if (key.isConnectable() && ch.finishConnect()) {
                        key.interestOps(SelectionKey.OP_WRITE);
                    }
                    if (key.isValid() && key.isWritable()) {
                        ch.write(c.out);
                        if (!c.out.hasRemaining()) {
                            key.interestOps(SelectionKey.OP_READ);
                            open++;
                        }
                    }
                    if (key.isValid() && key.isReadable()) {
                        in.clear();
                        int n = ch.read(in);
                        if (n < 0) {
                            closed++;
                            key.cancel();
                            ch.close();
                            continue;
                        }
                        in.flip();
                        in.get(chunk, 0, n);
                        consume(c, chunk, n, System.nanoTime());
                    }
                } catch (IOException e) {
                    closed++;
                    key.cancel();
                    ch.close();
                }
            }
        }

        /** Skips the headers, then splits the body into lines and times each of this run's JobRegistered events. */
        private void consume(Conn c, byte[] b, int n, long now) {
            for (int i = 0; i < n; i++) {
                byte x = b[i];
                if (!c.inBody) {
                    // the end of the headers: \r\n\r\n
                    c.headerMatch = (x == '\r' || x == '\n') ? c.headerMatch + 1 : 0;
                    c.inBody = c.headerMatch == 4;
                    continue;
                }
                if (x != '\n') {
                    if (c.lineLength < c.line.length) {
                        c.line[c.lineLength++] = x;
                    }
                    continue;
                }
                line(c, now);
                c.lineLength = 0;
            }
        }

        private void line(Conn c, long now) {
            byte[] l = c.line;
            int len = c.lineLength;
            if (len > 0 && l[0] != '{') {
                closeText = new String(l, 0, len, StandardCharsets.UTF_8); // the server's closing words
                return;
            }
            outer:
            for (int i = 0; i + MARKER.length < len; i++) {
                for (int j = 0; j < MARKER.length; j++) {
                    if (l[i + j] != MARKER[j]) {
                        continue outer;
                    }
                }
                int k = i + MARKER.length;
                int job = 0;
                while (k < len && l[k] >= '0' && l[k] <= '9') {
                    job = job * 10 + (l[k++] - '0');
                }
                if (job < jobs && sentAt.get(job) != 0) {
                    lag(now - sentAt.get(job));
                    c.received++;
                    delivered++;
                }
                i = k;
            }
        }

        private void lag(long ns) {
            if (lagCount == lags.length) {
                lags = Arrays.copyOf(lags, lags.length * 2);
            }
            lags[lagCount++] = ns;
        }

        void awaitOpen(Duration limit) throws InterruptedException {
            long deadline = System.nanoTime() + limit.toNanos();
            while (open < count && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            if (open < count) {
                throw new IllegalStateException("only " + open + " of " + count + " subscribers connected");
            }
        }

        void awaitDelivered(Duration limit) throws InterruptedException {
            long deadline = System.nanoTime() + limit.toNanos();
            while (delivered < (long) (count - closed) * jobs && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
        }

        void stop() {
            stop = true;
        }

        long delivered() {
            return delivered;
        }

        int closed() {
            return closed;
        }

        long[] sortedLags() {
            long[] out = Arrays.copyOf(lags, lagCount);
            Arrays.sort(out);
            return out;
        }
    }

    private static double pct(long[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)] / 1e6;
    }

    private static String section(int subscribers, int rate, int seconds, int buffer, int jobs, Driver driver,
                                  long registeredNs,
                                  Subscribers subs, long agentCpuMs, long harnessCpuMs, long threadsIdle,
                                  long threadsBusy, String loadBefore, String loadAfter) {
        long[] lags = subs.sortedLags();
        long[] reg = driver.latencyNs.clone();
        Arrays.sort(reg);
        double achieved = (jobs - driver.errors.get()) / (registeredNs / 1e9);
        long expected = (long) subscribers * jobs;
        StringBuilder s = new StringBuilder();
        s.append("## ").append(ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern(
                "yyyy-MM-dd HH:mm"))).append(" UTC — event stream fan-out (EventStreamBench)\n\n");
        s.append(String.format(Locale.ROOT, "%,d subscribers of `/v1/event/stream?topic=Job:*` on one dev agent while"
                + " %,d stopped jobs were registered at a target of %,d/s (%d s), `event_buffer_size = %,d`; lag is"
                + " from the register being sent to a subscriber having the event's line.%n%n", subscribers, jobs, rate,
                seconds, buffer));
        s.append("| measure | value |\n|---|---|\n");
        s.append(String.format(Locale.ROOT, "| registers: achieved rate | %,.0f /s (%,d errors%s) |%n", achieved,
                driver.errors.get(), driver.firstError == null ? "" : ", first: " + driver.firstError));
        s.append(String.format(Locale.ROOT, "| register latency p50 / p99 | %.1f / %.1f ms |%n", pct(reg, 50),
                pct(reg, 99)));
        s.append(String.format(Locale.ROOT, "| deliveries | %,d of %,d (%d subscribers closed by the server%s) |%n",
                subs.delivered(), expected, subs.closed(), subs.closeText.isEmpty() ? ""
                        : ": \"" + subs.closeText + "\""));
        s.append(String.format(Locale.ROOT, "| delivery lag p50 / p90 / p99 / max | %.1f / %.1f / %.1f / %.1f ms |%n",
                pct(lags, 50), pct(lags, 90), pct(lags, 99), pct(lags, 100)));
        s.append(String.format(Locale.ROOT, "| agent CPU (registers + fan-out) | %,d ms: %.2f ms per register, %.1f µs"
                + " per delivery |%n", agentCpuMs, agentCpuMs / (double) Math.max(1, jobs),
                agentCpuMs * 1000.0 / Math.max(1, subs.delivered())));
        s.append(String.format(Locale.ROOT, "| agent threads idle / under load | %d / %d |%n", threadsIdle,
                threadsBusy));
        s.append(String.format(Locale.ROOT, "| harness CPU | %,d ms |%n", harnessCpuMs));
        s.append("\nMachine: ").append(Report.machine()).append("; load before/after: ").append(loadBefore)
                .append(" / ").append(loadAfter).append(". Harness flags: ").append(DevAgent.harnessFlags())
                .append(".\n");
        return s.toString();
    }
}
