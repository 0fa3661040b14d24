package io.caravan.state;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** A tiny Nomad-like model for the tests: allocations indexed by node, job and tags; nodes. */
final class Fixtures {

    record Alloc(String id, String nodeId, String jobId, List<String> tags) {
        Alloc {
            tags = List.copyOf(tags);
        }

        Alloc onNode(String node) {
            return new Alloc(id, node, jobId, tags);
        }
    }

    record Node(String id, String name) {
    }

    static final TableSpec<Alloc> ALLOCS = TableSpec.of("allocs", Alloc.class, Alloc::id)
            .withIndex(IndexSpec.single("node", Alloc::nodeId))
            .withIndex(IndexSpec.single("job", Alloc::jobId))
            .withIndex(IndexSpec.multi("tag", Alloc::tags));

    static final TableSpec<Node> NODES = TableSpec.of("nodes", Node.class, Node::id);

    static final List<TableSpec<?>> TABLES = List.of(ALLOCS, NODES);

    /** Fields joined by U+0001: enough for tests, not a real format. */
    static final Codec CODEC = Codec.of(
            new TableCodec<>(ALLOCS,
                    a -> join(a.id(), nullToEmpty(a.nodeId()), a.jobId(), String.join(",", a.tags())),
                    b -> {
                        String[] f = split(b, 4);
                        return new Alloc(f[0], f[1].isEmpty() ? null : f[1], f[2],
                                f[3].isEmpty() ? List.of() : Arrays.asList(f[3].split(",")));
                    }),
            new TableCodec<>(NODES, n -> join(n.id(), n.name()), b -> {
                String[] f = split(b, 2);
                return new Node(f[0], f[1]);
            }));

    static Alloc alloc(String id, String node, String job, String... tags) {
        return new Alloc(id, node, job, List.of(tags));
    }

    static ScheduledExecutorService scheduler() {
        return Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "test-timer"));
    }

    static ExecutorService executor() {
        return Executors.newFixedThreadPool(2, r -> daemon(r, "test-query"));
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    private static byte[] join(String... fields) {
        return String.join("\u0001", fields).getBytes(StandardCharsets.UTF_8);
    }

    private static String[] split(byte[] bytes, int n) {
        String[] f = new String(bytes, StandardCharsets.UTF_8).split("\u0001", -1);
        if (f.length != n) {
            throw new IllegalArgumentException("expected " + n + " fields, got " + f.length);
        }
        return f;
    }

    private Fixtures() {
    }
}
