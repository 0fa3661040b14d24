package io.caravan.scheduler.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.Affinity;
import io.caravan.api.model.Constraint;
import io.caravan.api.model.DisconnectStrategy;
import io.caravan.api.model.EphemeralDisk;
import io.caravan.api.model.Job;
import io.caravan.api.model.NetworkResource;
import io.caravan.api.model.Port;
import io.caravan.api.model.ReschedulePolicy;
import io.caravan.api.model.Resources;
import io.caravan.api.model.Spread;
import io.caravan.api.model.Task;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.VolumeRequest;

/** Canonical-looking jobs for tests: one group "web" with one raw_exec task "server" (500 MHz, 256 MB). */
public final class TestJobs {
    private final String id;
    private String type = Job.TYPE_SERVICE;
    private List<String> datacenters = List.of("dc1");
    private String pool;
    private final List<Constraint> constraints = new ArrayList<>();
    private final List<Affinity> affinities = new ArrayList<>();
    private final List<Spread> spreads = new ArrayList<>();
    private final List<TaskGroup> groups = new ArrayList<>();
    private final Map<String, String> meta = new HashMap<>();
    private long version = 0;
    private boolean stop;

    private TestJobs(String id) {
        this.id = id;
    }

    public static TestJobs job(String id) {
        return new TestJobs(id);
    }

    public TestJobs type(String t) {
        this.type = t;
        return this;
    }

    public TestJobs datacenters(String... dcs) {
        this.datacenters = List.of(dcs);
        return this;
    }

    public TestJobs pool(String p) {
        this.pool = p;
        return this;
    }

    public TestJobs constraint(String l, String op, String r) {
        constraints.add(new Constraint(l, r, op));
        return this;
    }

    public TestJobs affinity(String l, String op, String r, int weight) {
        affinities.add(new Affinity(l, r, op, weight));
        return this;
    }

    public TestJobs spread(String attribute, int weight, Spread.Target... targets) {
        spreads.add(new Spread(attribute, weight, List.of(targets)));
        return this;
    }

    public TestJobs group(TaskGroup g) {
        groups.add(g);
        return this;
    }

    public TestJobs meta(String k, String v) {
        meta.put(k, v);
        return this;
    }

    /** Version and JobModifyIndex move together here. */
    public TestJobs version(long v) {
        this.version = v;
        return this;
    }

    public TestJobs stopped() {
        this.stop = true;
        return this;
    }

    public Job build() {
        List<TaskGroup> tgs = groups.isEmpty() ? List.of(group("web", 1).build()) : groups;
        return new Job(Job.DEFAULT_REGION, Job.DEFAULT_NAMESPACE, id, null, id, type, 50, false, datacenters, pool,
                constraints, affinities, spreads, tgs, null, null, null, null, null, null, false, null, null, meta,
                null, null, null, null, null, Job.STATUS_PENDING, "", false, version, 0L, 1L, 1L, 10 + version, stop,
                null, null);
    }

    public static GroupBuilder group(String name, int count) {
        return new GroupBuilder(name, count);
    }

    public static Task task(String name, String driver, int cpu, int memory) {
        return task(name, driver, new Resources(cpu, null, memory, null, null, null, null, null, null, null),
                Map.of("command", "/bin/true"), List.of());
    }

    public static Task task(String name, String driver, Resources r, Map<String, Object> config,
                            List<Constraint> constraints) {
        return new Task(name, driver, null, null, config, constraints, null, null, null, r, null, null,
                Duration.ofSeconds(5), null, null, null, null, null, null, null, null, false, null, null, null, null,
                null, null, null, null);
    }

    public static ReschedulePolicy reschedule(int attempts, Duration interval, Duration delay, String function,
                                              Duration maxDelay, boolean unlimited) {
        return new ReschedulePolicy(attempts, interval, delay, function, maxDelay, unlimited);
    }

    /** A task group builder; defaults to one task "server" (raw_exec, 500 MHz, 256 MB) and a 300 MB disk. */
    public static final class GroupBuilder {
        private final String name;
        private final int count;
        private final List<Task> tasks = new ArrayList<>();
        private final List<Constraint> constraints = new ArrayList<>();
        private final List<Affinity> affinities = new ArrayList<>();
        private final List<Spread> spreads = new ArrayList<>();
        private final Map<String, VolumeRequest> volumes = new HashMap<>();
        private final List<NetworkResource> networks = new ArrayList<>();
        private final Map<String, String> meta = new HashMap<>();
        private ReschedulePolicy reschedule = TestJobs.reschedule(0, Duration.ZERO, Duration.ofSeconds(30),
                ReschedulePolicy.DELAY_EXPONENTIAL, Duration.ofHours(1), true);
        private int diskMb = 300;
        private boolean sticky;
        private DisconnectStrategy disconnect;

        GroupBuilder(String name, int count) {
            this.name = name;
            this.count = count;
        }

        public GroupBuilder task(Task t) {
            tasks.add(t);
            return this;
        }

        public GroupBuilder constraint(String l, String op, String r) {
            constraints.add(new Constraint(l, r, op));
            return this;
        }

        public GroupBuilder affinity(String l, String op, String r, int weight) {
            affinities.add(new Affinity(l, r, op, weight));
            return this;
        }

        public GroupBuilder spread(String attribute, int weight, Spread.Target... targets) {
            spreads.add(new Spread(attribute, weight, List.of(targets)));
            return this;
        }

        public GroupBuilder hostVolume(String name, String source, boolean readOnly) {
            volumes.put(name, new VolumeRequest(name, VolumeRequest.TYPE_HOST, source, readOnly, false, null, null,
                    null, false));
            return this;
        }

        public GroupBuilder ports(List<Port> statics, List<Port> dynamics) {
            networks.add(new NetworkResource("host", null, null, null, null, 0, null, statics, dynamics, null));
            return this;
        }

        public GroupBuilder reschedule(ReschedulePolicy policy) {
            this.reschedule = policy;
            return this;
        }

        public GroupBuilder meta(String k, String v) {
            meta.put(k, v);
            return this;
        }

        public GroupBuilder disconnect(Duration lostAfter, boolean replace) {
            return disconnect(new DisconnectStrategy(lostAfter, replace, null, null));
        }

        public GroupBuilder disconnect(DisconnectStrategy strategy) {
            this.disconnect = strategy;
            return this;
        }

        public GroupBuilder stickyDisk() {
            this.sticky = true;
            return this;
        }

        public GroupBuilder disk(int mb) {
            this.diskMb = mb;
            return this;
        }

        public TaskGroup build() {
            List<Task> ts = tasks.isEmpty() ? List.of(TestJobs.task("server", "raw_exec", 500, 256)) : tasks;
            return new TaskGroup(name, count, constraints, affinities, ts, spreads, volumes, null, disconnect, reschedule,
                    new EphemeralDisk(sticky, false, diskMb), null, null, networks, meta, null, null, null, null, null,
                    null, null, null);
        }
    }

    /** Changes a built job's priority (the api record has no wither for it). */
    public static final class Shim {
        private final Job job;

        public Shim(Job job) {
            this.job = job;
        }

        public Job priority(int priority) {
            Job j = job;
            return new Job(j.region(), j.namespace(), j.id(), j.parentId(), j.name(), j.type(), priority,
                    j.allAtOnce(), j.datacenters(), j.nodePool(), j.constraints(), j.affinities(), j.spreads(),
                    j.taskGroups(), j.update(), j.multiregion(), j.periodic(), j.parameterizedJob(), j.reschedule(),
                    j.migrate(), j.dispatched(), j.dispatchIdempotencyToken(), j.payload(), j.meta(), j.consulToken(),
                    j.consulNamespace(), j.vaultToken(), j.vaultNamespace(), j.nomadTokenId(), j.status(),
                    j.statusDescription(), j.stable(), j.version(), j.submitTime(), j.createIndex(), j.modifyIndex(),
                    j.jobModifyIndex(), j.stop(), j.ui(), j.versionTag());
        }
    }
}
