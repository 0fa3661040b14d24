package io.caravan.client.internal.testing;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.api.model.Task;
import io.caravan.client.internal.Client;

/** Builds test objects from Nomad-shaped JSON maps (the records have dozens of components), and bounded waits. */
public final class Fixtures {
    private Fixtures() {
    }

    /** A task map: {@code sh -c script} on the test driver. */
    public static Map<String, Object> shTask(String name, String script) {
        Map<String, Object> task = new LinkedHashMap<>();
        task.put("Name", name);
        task.put("Driver", "test");
        task.put("Config", Map.of("command", "sh", "args", List.of("-c", script)));
        task.put("KillTimeout", Duration.ofSeconds(2).toNanos());
        return task;
    }

    public static Map<String, Object> restart(int attempts, Duration delay, Duration interval, String mode) {
        return Map.of("Attempts", attempts, "Delay", delay.toNanos(), "Interval", interval.toNanos(), "Mode", mode);
    }

    /** An allocation of job {@code jobId} ({@code type}) whose group "g" holds {@code tasks}. */
    @SafeVarargs
    public static Allocation alloc(String nodeId, String jobId, String type, Map<String, Object> groupExtra,
                                   Map<String, Object>... tasks) {
        Map<String, Object> group = new LinkedHashMap<>();
        group.put("Name", "g");
        group.put("Count", 1);
        group.put("Tasks", new ArrayList<>(List.of(tasks)));
        group.putAll(groupExtra);
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("ID", jobId);
        job.put("Name", jobId);
        job.put("Type", type);
        job.put("Region", "global");
        job.put("Namespace", "default");
        job.put("Datacenters", List.of("dc1"));
        job.put("TaskGroups", List.of(group));
        job.put("Meta", Map.of("owner", "ops"));
        Map<String, Object> alloc = new LinkedHashMap<>();
        alloc.put("ID", UUID.randomUUID().toString());
        alloc.put("Namespace", "default");
        alloc.put("Name", jobId + ".g[0]");
        alloc.put("NodeID", nodeId);
        alloc.put("JobID", jobId);
        alloc.put("Job", job);
        alloc.put("TaskGroup", "g");
        alloc.put("DesiredStatus", "run");
        alloc.put("ClientStatus", "pending");
        return NomadJson.mapper().convertValue(alloc, Allocation.class);
    }

    public static Task task(Map<String, Object> task) {
        return NomadJson.mapper().convertValue(task, Task.class);
    }

    public static Node node(String id, Map<String, String> attributes, Map<String, String> meta) {
        return NomadJson.mapper().convertValue(Map.of("ID", id, "Name", "node-1", "Datacenter", "dc1",
                "NodeClass", "linux-small", "NodePool", "default", "Attributes", attributes, "Meta", meta), Node.class);
    }

    public static Client.AgentIdentity agent(String nodeId, Path dataDir) {
        return new Client.AgentIdentity(nodeId, "node-1", "dc1", "127.0.0.1:4646", false, "0.1.0", dataDir);
    }

    public static Client.Timing fastTiming() {
        return new Client.Timing(Duration.ofMillis(200), Duration.ofMillis(50), Duration.ofSeconds(2),
                Duration.ofMillis(100));
    }

    /** Waits up to {@code timeout} for {@code condition}; fails with {@code what} otherwise. */
    public static void await(Duration timeout, String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }

    /** A clock tests move by hand. */
    public static final class MutableClock extends Clock {
        private volatile Instant now;

        public MutableClock(Instant start) {
            now = start;
        }

        public void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
