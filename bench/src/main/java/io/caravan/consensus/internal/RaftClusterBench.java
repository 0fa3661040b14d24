package io.caravan.consensus.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import io.caravan.consensus.BatchingCommandHandler;
import io.caravan.consensus.CommandHandler;
import io.caravan.consensus.NotLeaderException;

/**
 * Raft scenario benchmark (not a test): three {@link RaftNode}s on loopback in this JVM, free ports, temp dirs, default
 * settings. Measures (a) one client's sequential submits of 256-byte commands (p50/p99, throughput), (b) N concurrent
 * clients, each keeping one async submit outstanding, and (c) failover: the leader is closed (on another thread) and
 * the time from that call to the next committed submit through a surviving node is taken, five times (the closed
 * server restarts and catches up between rounds). In-JVM "kill" is {@code RaftNode.close()}; a real {@code kill -9} is measured by the E2E harness.
 *
 * <p>The handler is a {@link BatchingCommandHandler}, so concurrent submits are grouped into one entry
 * ({@link SubmitBatcher}); with {@code --plain} it is a plain {@link CommandHandler} and every command is an entry of
 * its own (plain Ratis, as before batching).
 *
 * <p>A split package (bench only), as {@code StateStoreBench}: RaftNode is package-private.
 * {@code java -cp "$CP" io.caravan.consensus.internal.RaftClusterBench [seconds-per-level] [clients,...] [--plain]}.
 */
public final class RaftClusterBench {
    private static final int COMMAND_BYTES = 256;
    private static final Duration READY = Duration.ofSeconds(60);

    private RaftClusterBench() {
    }

    public static void main(String[] args) throws Exception {
        List<String> positional = Arrays.stream(args).filter(a -> !a.startsWith("--")).toList();
        boolean plain = Arrays.asList(args).contains("--plain");
        int seconds = positional.size() > 0 ? Integer.parseInt(positional.get(0)) : 5;
        int[] levels = positional.size() > 1
                ? Arrays.stream(positional.get(1).split(",")).mapToInt(Integer::parseInt).toArray()
                : new int[] {1, 8, 64, 256};
        Path root = Files.createTempDirectory("raft-cluster-bench");
        List<Member> members = new ArrayList<>();
        try {
            List<Peer> peers = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                peers.add(new Peer("b" + i, "127.0.0.1:" + freePort()));
            }
            byte[] secret = RaftSettings.randomSecret();   // one cluster key: mutual TLS, as servers with encrypt run
            for (Peer self : peers) {
                members.add(new Member(new RaftSettings(self, peers, root.resolve(self.id()),
                        RaftSettings.DEFAULT_SNAPSHOT_THRESHOLD, RaftSettings.DEFAULT_TRAILING_LOGS,
                        Duration.ofSeconds(5), secret), plain));
            }
            long t0 = System.nanoTime();
            for (Member m : members) {
                m.start();
            }
            for (Member m : members) {
                if (!m.node.awaitReady(READY)) {
                    throw new IllegalStateException(m + " not ready");
                }
            }
            System.out.printf("3 servers ready in %d ms (%s)%n", ms(System.nanoTime() - t0),
                    plain ? "plain handler: one command per entry" : "batching handler");
            Member leader = leader(members);
            System.out.printf("leader %s%n", leader);

            sequential(leader.node, 2000, false);   // warm-up
            sequential(leader.node, 5000, true);
            for (int clients : levels) {
                concurrentAtLeader(members, 1, clients);   // warm-up
                concurrentAtLeader(members, seconds, clients);
            }
            failover(members, 5);
        } finally {
            members.forEach(Member::close);
            try (Stream<Path> files = Files.walk(root)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        System.exit(0);   // Ratis leaves non-daemon threads behind for a while
    }

    private static void sequential(RaftNode node, int samples, boolean report) throws Exception {
        long[] latencies = new long[samples];
        long start = System.nanoTime();
        for (int i = 0; i < samples; i++) {
            long s = System.nanoTime();
            node.submit(command(i)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            latencies[i] = System.nanoTime() - s;
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        if (report) {
            Arrays.sort(latencies);
            System.out.printf("(a) 1 client, %d sequential submits of %d B: p50 %.3f ms, p99 %.3f ms, max %.3f ms, "
                    + "%.0f submits/s%n", samples, COMMAND_BYTES, latencies[samples / 2] / 1e6,
                    latencies[samples * 99 / 100] / 1e6, latencies[samples - 1] / 1e6, samples / elapsed);
        }
    }

    /**
     * One level at the current leader; if leadership moves meanwhile (an election on a loaded machine), says so and
     * runs the level again at the new leader, up to 3 times.
     */
    private static void concurrentAtLeader(List<Member> members, int seconds, int clients) throws Exception {
        for (int attempt = 1; ; attempt++) {
            Member leader = leader(members);
            try {
                concurrent(leader.node, seconds, clients);
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof NotLeaderException) || attempt == 3) {
                    throw e;
                }
                System.out.printf("(b) %d clients: leadership left %s during the run (%s); again%n", clients, leader,
                        e.getCause().getMessage());
                for (Member m : members) {
                    m.node.awaitReady(READY);
                }
            }
        }
    }

    private static void concurrent(RaftNode node, int seconds, int clients) throws Exception {
        AtomicLong done = new AtomicLong();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        CompletableFuture<?>[] loops = new CompletableFuture<?>[clients];
        long s = System.nanoTime();
        for (int c = 0; c < clients; c++) {
            CompletableFuture<Void> loop = new CompletableFuture<>();
            next(node, end, done, loop);   // each client: submit, wait for the result, submit again
            loops[c] = loop;
        }
        CompletableFuture.allOf(loops).get(seconds + 60L, TimeUnit.SECONDS);
        double elapsed = (System.nanoTime() - s) / 1e9;
        if (seconds > 1) {
            System.out.printf("(b) %d concurrent clients for %.1f s: %d submits, %.0f submits/s%n", clients, elapsed,
                    done.get(), done.get() / elapsed);
        }
    }

    private static void next(RaftNode node, long end, AtomicLong done, CompletableFuture<Void> loop) {
        if (System.nanoTime() >= end) {
            loop.complete(null);
            return;
        }
        node.submit(command(done.get())).whenComplete((applied, error) -> {
            if (error != null) {
                loop.completeExceptionally(error);
            } else {
                done.incrementAndGet();
                next(node, end, done, loop);
            }
        });
    }

    /**
     * Closes the leader, then submits through a surviving node (following its NotLeader redirects, retrying while no
     * leader is known) until one commits; the time from the close call to that commit. The closed server restarts
     * and catches up before the next round.
     */
    private static void failover(List<Member> members, int rounds) throws Exception {
        List<Long> times = new ArrayList<>();
        for (int r = 1; r <= rounds; r++) {
            for (Member m : members) {
                if (!m.node.awaitReady(READY)) {
                    throw new IllegalStateException(m + " not ready before round " + r);
                }
            }
            Member leader = leader(members);
            List<Member> survivors = members.stream().filter(m -> m != leader).toList();
            // Closed on a thread of its own while the survivors are already being written to: Ratis' close takes
            // hundreds of ms, and a killed process would not make the survivors wait for it.
            long killed = System.nanoTime();
            RaftNode old = leader.node;
            CompletableFuture<Long> closed = CompletableFuture.supplyAsync(() -> {
                old.close();
                return System.nanoTime();
            });
            commitThroughAny(survivors, r);
            long committed = System.nanoTime();
            Member next = leader(survivors);
            long closedAt = closed.get(60, TimeUnit.SECONDS);
            times.add(ms(committed - killed));
            System.out.printf("(c) failover %d: %s closing (close took %d ms), next commit through %s after %d ms%n",
                    r, leader, ms(closedAt - killed), next, ms(committed - killed));
            leader.start();   // rejoins as a follower with its log
        }
        System.out.printf("(c) failover times (ms): %s%n", times);
    }

    private static void commitThroughAny(List<Member> survivors, int round) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int i = 0;
        while (System.nanoTime() < deadline) {
            Member via = survivors.get(i++ % survivors.size());
            try {
                via.node.submit(command(round)).toCompletableFuture().get(10, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof NotLeaderException)) {
                    throw e;
                }
                // a follower naming the (closing) leader: the next loop turn goes to the other survivor
                Thread.sleep(2);
            } catch (TimeoutException e) {
                // try the other survivor
            }
        }
        throw new IllegalStateException("no commit within 60 s after closing the leader");
    }

    private static Member leader(List<Member> members) throws InterruptedException {
        long deadline = System.nanoTime() + READY.toNanos();
        while (System.nanoTime() < deadline) {
            for (Member m : members) {
                if (m.node.isLeader()) {
                    return m;
                }
            }
            Thread.sleep(1);
        }
        throw new IllegalStateException("no leader");
    }

    private static byte[] command(long value) {
        byte[] c = new byte[COMMAND_BYTES];
        for (int b = 0; b < Long.BYTES; b++) {
            c[b] = (byte) (value >>> (56 - 8 * b));
        }
        return c;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    /** One server; its node is replaced when it restarts after a failover round. */
    private static final class Member {
        final RaftSettings settings;
        final boolean plain;
        volatile RaftNode node;

        Member(RaftSettings settings, boolean plain) {
            this.settings = settings;
            this.plain = plain;
        }

        void start() throws IOException {
            Counter counter = new Counter();
            node = new RaftNode(settings, plain ? new PlainCounter(counter) : counter, System::currentTimeMillis);
            node.start();
        }

        void close() {
            if (node != null) {
                node.close();
            }
        }

        @Override
        public String toString() {
            return settings.self().id();
        }
    }

    /** Counts applied commands; the snapshot is the count. Results are 8 bytes, as a small write's result would be. */
    private static final class Counter implements BatchingCommandHandler {
        private long count;

        @Override
        public byte[] apply(long index, long timestampMillis, byte[] command) {
            count++;
            return new byte[] {(byte) (count >>> 8), (byte) count, 0, 0, 0, 0, 0, 0};
        }

        @Override
        public void snapshot(OutputStream out) throws IOException {
            out.write(Long.toString(count).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }

        @Override
        public void restore(long index, InputStream in) throws IOException {
            String s = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
            count = s.isEmpty() ? 0 : Long.parseLong(s);
        }
    }

    /** The same counter, not a batching handler: each command gets an entry of its own. */
    private record PlainCounter(Counter counter) implements CommandHandler {
        @Override
        public byte[] apply(long index, long timestampMillis, byte[] command) {
            return counter.apply(index, timestampMillis, command);
        }

        @Override
        public void snapshot(OutputStream out) throws IOException {
            counter.snapshot(out);
        }

        @Override
        public void restore(long index, InputStream in) throws IOException {
            counter.restore(index, in);
        }
    }
}
