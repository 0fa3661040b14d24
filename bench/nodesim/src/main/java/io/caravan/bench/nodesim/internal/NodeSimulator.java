package io.caravan.bench.nodesim.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.caravan.api.endpoint.NodeEndpoint;
import io.caravan.api.model.AllocDeploymentStatus;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.DriverInfo;
import io.caravan.api.model.Node;
import io.caravan.api.model.NodeResources;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Simulated client nodes for scheduling benchmarks (Nomad's C1M used 5,000 real hosts): each registers through the
 * real {@link NodeEndpoint}, heartbeats within the TTL the server returns, holds a blocking query on its
 * allocations like a real client, and reports every new allocation as running in one batched update (healthy too
 * when it belongs to a deployment, unless {@code report_health = false}). No tasks run.
 * Configured by PID {@code io.caravan.bench.nodesim} (a {@code .cfg} file in the plugin directory).
 */
@Component(configurationPid = "io.caravan.bench.nodesim", configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = NodeSimulator.Config.class)
public final class NodeSimulator {
    private static final Logger LOG = LoggerFactory.getLogger(NodeSimulator.class);

    @ObjectClassDefinition(name = "Caravan node simulator")
    public @interface Config {
        @AttributeDefinition(description = "How many nodes to simulate")
        int nodes() default 100;

        @AttributeDefinition(description = "The number of the first node: simulators on several servers of one "
                + "cluster simulate distinct nodes")
        int first() default 0;

        String datacenter() default "dc1";

        @AttributeDefinition(description = "Racks (meta.rack) the nodes are spread over")
        int racks() default 25;

        long cpu_mhz() default 16000;

        long memory_mb() default 65536;

        @AttributeDefinition(description = "Report an allocation of a deployment healthy as soon as it runs, as a "
                + "client's task-state health check would once min_healthy_time passed")
        boolean report_health() default true;

        @AttributeDefinition(description = "When a node heartbeats, as a fraction of the TTL the server gave it: "
                + "Nomad's client beats at the TTL (1.0); the default 0.5 leaves room for a loaded benchmark machine")
        double heartbeat_fraction() default 0.5;

        @AttributeDefinition(description = "Nodes registered per second (0: all at once); 10,000 nodes registering "
                + "together time out and retry faster than a small cluster can write them")
        double register_per_second() default 0;
    }

    private final NodeEndpoint endpoint;
    private final ScheduledExecutorService timers;
    private final List<SimNode> nodes = new ArrayList<>();
    private final boolean reportHealth;
    private final double heartbeatFraction;
    private final AtomicLong running = new AtomicLong();
    private volatile boolean closed;

    @Activate
    public NodeSimulator(@Reference NodeEndpoint endpoint, Config config) {
        this.endpoint = endpoint;
        this.reportHealth = config.report_health();
        if (!(config.heartbeat_fraction() > 0 && config.heartbeat_fraction() <= 1)) {
            throw new IllegalArgumentException("heartbeat_fraction must be in (0, 1]: " + config.heartbeat_fraction());
        }
        this.heartbeatFraction = config.heartbeat_fraction();
        ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(2, r -> {
            Thread t = new Thread(r, "caravan-nodesim");
            t.setDaemon(true);
            return t;
        });
        pool.setRemoveOnCancelPolicy(true);
        this.timers = pool;
        for (int i = 0; i < config.nodes(); i++) {
            nodes.add(new SimNode(node(config, config.first() + i)));
        }
        double perSecond = config.register_per_second();
        if (perSecond <= 0) {
            timers.execute(() -> nodes.forEach(SimNode::register));
        } else {
            for (int i = 0; i < nodes.size(); i++) {
                timers.schedule(nodes.get(i)::register, (long) (i * 1000 / perSecond), TimeUnit.MILLISECONDS);
            }
        }
        LOG.info("simulating {} nodes", config.nodes());
    }

    @Deactivate
    void deactivate() {
        closed = true;
        timers.shutdownNow();
        LOG.info("node simulator stopped; {} allocations reported running", running.get());
    }

    private static Node node(Config config, int i) {
        String id = String.format("5e000000-0000-4000-8000-%012d", i);
        Map<String, String> attributes = Map.of("kernel.name", "linux", "os.name", "simulated",
                "driver.raw_exec", "1", "unique.hostname", "sim-" + i, "cpu.numcores", "16",
                "nomad.version", "1.9.0");
        NodeResources resources = new NodeResources(new NodeResources.Cpu(config.cpu_mhz(), 16, List.of()), null,
                new NodeResources.Memory(config.memory_mb()), new NodeResources.Disk(1_000_000), List.of(), List.of(),
                List.of(), 20000, 32000);
        Node blank = new Node(id, "secret-" + i, config.datacenter(), "sim-" + i, "", "", false, attributes,
                resources, null, Map.of(), Map.of("rack", "r" + (i % config.racks()), "sim", "true"), "sim", "default",
                "", null, Node.ELIGIBLE, Node.STATUS_INITIALIZING, "", "", 0, List.of(),
                Map.of("raw_exec", new DriverInfo(Map.of(), true, true, "Healthy", null)), Map.of(), Map.of(),
                Map.of(), Map.of(), null, 0, 0, 0, 0, 0);
        return blank;
    }

    /** One simulated client: register, ready, heartbeat loop, alloc watch loop. */
    private final class SimNode {
        private final Node node;
        private final Map<String, Long> known = new HashMap<>();

        SimNode(Node node) {
            this.node = node;
        }

        void register() {
            endpoint.register(node)
                    .thenCompose(r -> endpoint.updateStatus(node.id(), node.secretId(), Node.STATUS_READY))
                    .whenComplete((r, e) -> {
                        if (e != null) {
                            retry(this::register, e);
                            return;
                        }
                        scheduleHeartbeat(r.heartbeatTtl());
                        watch(0);
                    });
        }

        private void scheduleHeartbeat(Duration ttl) {
            if (closed) {
                return;
            }
            timers.schedule(() -> endpoint.updateStatus(node.id(), node.secretId(), Node.STATUS_READY)
                    .whenComplete((r, e) -> scheduleHeartbeat(e == null ? r.heartbeatTtl() : Duration.ofSeconds(1))),
                    (long) (ttl.toMillis() * heartbeatFraction), TimeUnit.MILLISECONDS);
        }

        private void watch(long index) {
            if (closed) {
                return;
            }
            endpoint.clientAllocs(node.id(), node.secretId(), index, index, Duration.ofMinutes(5)) // only what changed
                    .thenCompose(answer -> {
                        List<String> fresh = new ArrayList<>();
                        synchronized (known) {
                            answer.allocs().forEach((id, modify) -> {
                                if (!modify.equals(known.put(id, modify))) {
                                    fresh.add(id);
                                }
                            });
                        }
                        CompletableFuture<Void> reported = fresh.isEmpty() ? CompletableFuture.completedFuture(null)
                                : endpoint.allocs(node.id(), node.secretId(), fresh)
                                .thenCompose(this::reportRunning).toCompletableFuture();
                        return reported.thenApply(v -> answer.index());
                    })
                    .whenComplete((next, e) -> {
                        if (e != null) {
                            retry(() -> watch(index), e);
                        } else {
                            watch(next);
                        }
                    });
        }

        private CompletableFuture<Void> reportRunning(List<Allocation> allocs) {
            List<Allocation> updates = allocs.stream()
                    .filter(a -> Allocation.DESIRED_RUN.equals(a.desiredStatus())
                            && Allocation.CLIENT_PENDING.equals(a.clientStatus()))
                    .map(a -> health(a.toBuilder().job(null).clientStatus(Allocation.CLIENT_RUNNING)
                            .clientDescription("Tasks are running"), a))
                    .toList();
            if (updates.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            return endpoint.updateAllocs(node.id(), node.secretId(), updates).toCompletableFuture()
                    .thenAccept(index -> running.addAndGet(updates.size()));
        }

        /** With a deployment, the health a client reports beside "running" (the server keeps Canary itself). */
        private Allocation health(Allocation.Builder update, Allocation a) {
            if (reportHealth && a.deploymentId() != null && !a.deploymentId().isEmpty()) {
                AllocDeploymentStatus was = a.deploymentStatus();
                update.deploymentStatus(new AllocDeploymentStatus(true, Instant.now(), was != null && was.canary(),
                        was == null ? 0 : was.modifyIndex()));
            }
            return update.build();
        }

        private void retry(Runnable action, Throwable cause) {
            if (closed) {
                return;
            }
            LOG.atDebug().addKeyValue("node_id", node.id()).addKeyValue("error", cause.toString()).log("retrying");
            timers.schedule(action, 1, TimeUnit.SECONDS);
        }
    }
}
