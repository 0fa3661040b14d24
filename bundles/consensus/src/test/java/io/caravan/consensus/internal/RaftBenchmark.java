package io.caravan.consensus.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Not a test: a one-server group on loopback, timed. Run it from the module directory with
 * {@code java -cp target/classes:target/test-classes:$(cat target/cp.txt) io.caravan.consensus.internal.RaftBenchmark}
 * after {@code mvn dependency:build-classpath -Dmdep.outputFile=target/cp.txt}. Arguments: [seconds] [clients].
 */
public final class RaftBenchmark {
    private RaftBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int clients = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        Path dir = Files.createTempDirectory("raft-bench");
        try {
            run(dir, seconds, clients);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        System.exit(0);   // Ratis leaves non-daemon threads behind for a while
    }

    private static void run(Path dir, int seconds, int clients) throws Exception {
        CountingHandler handler = new CountingHandler(false);
        RaftSettings settings = TestNodes.single("bench", TestNodes.freePort(), dir,
                RaftSettings.DEFAULT_SNAPSHOT_THRESHOLD);
        long t0 = System.nanoTime();
        try (RaftNode node = new RaftNode(settings, handler, System::currentTimeMillis)) {
            node.start();
            long started = System.nanoTime();
            if (!node.awaitReady(Duration.ofSeconds(60))) {
                throw new IllegalStateException("no leader");
            }
            long ready = System.nanoTime();
            System.out.printf("start: build+start %d ms, election+replay %d ms, total to ready %d ms%n",
                    ms(started - t0), ms(ready - started), ms(ready - t0));

            for (int i = 0; i < 3000; i++) {   // warm-up
                node.submit(CountingHandler.command(i)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            }

            int samples = 5000;
            long[] latencies = new long[samples];
            for (int i = 0; i < samples; i++) {
                long s = System.nanoTime();
                node.submit(CountingHandler.command(i)).toCompletableFuture().get(10, TimeUnit.SECONDS);
                latencies[i] = System.nanoTime() - s;
            }
            Arrays.sort(latencies);
            System.out.printf("1 client, %d sequential submits: p50 %.3f ms, p99 %.3f ms, max %.3f ms%n", samples,
                    latencies[samples / 2] / 1e6, latencies[samples * 99 / 100] / 1e6, latencies[samples - 1] / 1e6);

            AtomicLong done = new AtomicLong();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            CompletableFuture<?>[] loops = new CompletableFuture<?>[clients];
            long s = System.nanoTime();
            for (int c = 0; c < clients; c++) {
                CompletableFuture<Void> loop = new CompletableFuture<>();
                next(node, end, done, loop);   // each client: submit, wait for the result, submit again
                loops[c] = loop;
            }
            CompletableFuture.allOf(loops).get(seconds + 30L, TimeUnit.SECONDS);
            double elapsed = (System.nanoTime() - s) / 1e9;
            System.out.printf("%d concurrent clients for %.1f s: %d submits, %.0f submits/s%n", clients, elapsed,
                    done.get(), done.get() / elapsed);
        }
    }

    private static void next(RaftNode node, long end, AtomicLong done, CompletableFuture<Void> loop) {
        if (System.nanoTime() >= end) {
            loop.complete(null);
            return;
        }
        node.submit(CountingHandler.command(1)).whenComplete((applied, error) -> {
            if (error != null) {
                loop.completeExceptionally(error);
            } else {
                done.incrementAndGet();
                next(node, end, done, loop);
            }
        });
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
