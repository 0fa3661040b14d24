package io.caravan.consensus.internal;

import java.nio.file.Files;
import java.time.Duration;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.caravan.consensus.CommandHandler;
import io.caravan.consensus.Leadership;
import io.caravan.consensus.RaftConfiguration;
import io.caravan.consensus.Replicator;
import io.caravan.metrics.MetricSource;
import io.caravan.tls.AgentTls;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs this agent's Raft server while it is a server (PID {@code io.caravan.server} exists) and a
 * {@link CommandHandler} is registered. Ratis starts on a thread of its own, never in {@code @Activate}: election and
 * log replay take a while, and other bundles must not wait for them.
 *
 * <p>A server with Raft state recovers its group from disk; one that left the group (leave_on_terminate) or was
 * removed keeps its log and waits until the leader adds it back. A new one takes its first group from membership
 * ({@link RaftMembers#initialGroup}): it bootstraps once {@code bootstrap_expect} servers see each other, or joins
 * servers whose Raft already runs; {@code bootstrap_expect = 1} (and dev mode) start alone at once. While leading, it
 * keeps the group in step with membership, one change at a time ({@link RaftMembers#nextConfiguration}): servers that
 * left are removed, servers alive in gossip whose Raft runs (new, or back after leaving) are added.
 *
 * <p>The Raft port's mutual TLS uses the agent's certificate when {@code tls.rpc} is on ({@link AgentTls#rpc}; only
 * servers of the region may connect), else certificates bound to the gossip key ({@link RaftTls}).
 *
 * <p>The {@link Replicator}, with the {@link RaftConfiguration} view of the same server, is registered by hand once the server is ready to write, because DS would register it at
 * activation; it is withdrawn again if the server stops. A changed configuration restarts the component.
 */
@Component(configurationPid = "io.caravan.server", configurationPolicy = ConfigurationPolicy.REQUIRE, service = {})
@Designate(ocd = ServerPidConfig.class)
public final class RaftServerComponent {
    private static final Logger LOG = LoggerFactory.getLogger(RaftServerComponent.class);
    private static final Duration READY_POLL = Duration.ofSeconds(1);
    private static final Duration LEADERSHIP_POLL = Duration.ofMillis(100);
    private static final Duration MEMBERSHIP_POLL = Duration.ofMillis(500);
    private static final Duration RECONCILE_EVERY = Duration.ofSeconds(1);
    private static final Duration WAIT_LOG_EVERY = Duration.ofSeconds(10);
    private static final long STOP_WAIT_MS = 10_000;
    private static final Duration TRANSPORT_STOP_WAIT = Duration.ofSeconds(3);
    /** How long changes may be refused as "in progress" before the leader steps down to clear it. */
    private static final Duration STUCK_AFTER = Duration.ofMinutes(2);
    /** Longer than Ratis' staging timeout, so that a change that cannot finish fails there rather than here. */
    private static final Duration CHANGE_WAIT =
            Duration.ofSeconds(RaftNode.STAGING_TIMEOUT.toLong(TimeUnit.SECONDS) + 5);

    private final BundleContext context;
    private final ServerPidConfig config;
    private final CommandHandler handler;
    private final RaftSettings configured;
    private final Thread starter;
    private final long activatedNanos = System.nanoTime();
    private final Map<String, Long> failedSince = new HashMap<>();   // node id → nanoTime; starter thread only
    private String lastChangeFailure;                                 // starter thread only
    private long busySince;                                           // nanoTime; starter thread only
    private List<Peer> lastAttempt;                                   // starter thread only
    private volatile RaftNode node;
    /** Autopilot's CleanupDeadServers and MinQuorum, as the replicated state last said (Nomad's defaults first). */
    private volatile boolean cleanupDeadServers = true;
    private volatile int minQuorum;
    private volatile ClusterMembership membership;
    private ServiceRegistration<?> registration;           // guarded by this
    private boolean deactivated;                           // guarded by this
    private ServiceRegistration<Leadership> leadership;    // guarded by this
    private long leadershipTerm = -1;                      // guarded by this

    @Activate
    public RaftServerComponent(ServerPidConfig config, @Reference CommandHandler handler, @Reference AgentTls tls,
                               BundleContext context) {
        this.context = context;
        this.config = config;
        this.handler = handler;
        this.configured = RaftSettings.fromConfig(config, tls.rpc());
        if (tls.rpc() != null && tls.settings().rpcUpgradeMode()) {
            // Nomad's Raft shares the RPC port and so the upgrade mode; ours has a port of its own, TLS only.
            LOG.warn("tls.rpc_upgrade_mode applies to the RPC port only: the Raft port {} accepts TLS from servers "
                    + "alone, so this server replicates only with servers that have tls.rpc on", config.raft_addr());
        }
        this.starter = new Thread(this::startAndRegister, "caravan-raft-start");
        starter.setDaemon(true);
        starter.start();
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindMembership(ClusterMembership m) {
        membership = m;
        announce();
    }

    void unbindMembership(ClusterMembership m) {
        if (membership == m) {
            membership = null;
        }
    }

    private void startAndRegister() {
        try {
            RaftSettings settings = initialSettings();
            RaftNode n = settings == null ? null : startNode(settings);
            if (n == null) {
                return;   // deactivated meanwhile
            }
            if (n.configuration().stream().noneMatch(p -> p.id().equals(configured.self().id()))) {
                // It left (leave_on_terminate) or was removed, and its log says so. As Nomad's servers rejoin through
                // retry_join and autopilot, it keeps its log and waits: the leader adds it back once membership shows
                // it alive (reconcile), and then sends what it missed.
                LOG.info("This server is not in its Raft configuration {} (it left or was removed): it waits for "
                        + "the leader to add it back", n.configuration());
            }
            while (!n.awaitReady(READY_POLL)) {
                if (!n.isRunning()) {
                    reportStop(n);
                    return;
                }
                LOG.debug("Raft server waits for a leader; peers {}", n.peers());
            }
            register();
            followLeadership();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            RaftNode n = node;
            if (n == null || n.isRunning()) {
                LOG.error("The Raft server did not start; this agent cannot serve writes", e);
            }
        }
    }

    private RaftNode startNode(RaftSettings settings) throws java.io.IOException {
        RaftNode n = new RaftNode(settings, handler, System::currentTimeMillis);
        n.onStop(this::unregister);
        synchronized (this) {
            if (deactivated) {
                return null;
            }
            node = n;
        }
        n.start();
        announce();
        return n;
    }

    private java.nio.file.Path groupDir() {
        return configured.dir().resolve(RaftNode.GROUP_ID.getUuid().toString());
    }

    private boolean hasState() {
        return Files.isDirectory(groupDir());
    }

    /**
     * The group to start with: the configured one when there is Raft state on disk, static peers, or nothing to wait
     * for; otherwise the one membership gives. Null when deactivated while waiting.
     */
    private RaftSettings initialSettings() throws InterruptedException {
        int expect = (int) config.bootstrap_expect();
        if (hasState() || configured.peers().size() > 1 || expect == 1 || config.dev_mode()) {
            return configured;
        }
        long lastLog = 0;
        while (true) {
            synchronized (this) {
                if (deactivated) {
                    return null;
                }
            }
            ClusterMembership m = membership;
            Optional<List<Peer>> group = m == null ? Optional.empty() : m.initialGroup(configured.self(), expect);
            if (group.isPresent()) {
                LOG.info("Raft starts with group {} ({})", group.get(), expect > 0
                        && group.get().size() >= expect ? "bootstrap_expect = " + expect + " reached" : "joining");
                return configured.withPeers(group.get());
            }
            if (System.nanoTime() - lastLog > WAIT_LOG_EVERY.toNanos()) {
                lastLog = System.nanoTime();
                LOG.info("Raft waits for {}: {} server(s) of region {} visible",
                        expect > 0 ? expect + " servers (bootstrap_expect)" : "a running server to join",
                        m == null ? 0 : m.visibleServers(), config.region());
            }
            Thread.sleep(MEMBERSHIP_POLL.toMillis());
        }
    }

    /** Tells the other servers this one's Raft runs, so a server starting later joins rather than bootstraps. */
    private void announce() {
        ClusterMembership m = membership;
        RaftNode n = node;
        if (m != null && n != null) {
            try {
                m.announceRunning();
            } catch (RuntimeException notStarted) {
                LOG.debug("Membership not ready for the raft tag: {}", notStarted.getMessage());
            }
        }
    }

    /**
     * Registers {@link Leadership} while this server leads. Polled: Ratis tells of leader changes before the new
     * leader has applied its predecessor's entries, and a poll at this period costs nothing next to an election.
     */
    private void followLeadership() throws InterruptedException {
        RaftNode node = this.node;
        long lastReconcile = 0;
        while (node.isRunning()) {
            long term = node.leaderTerm();
            synchronized (this) {
                if (deactivated) {
                    return;
                }
                if (leadership != null && leadershipTerm != term) {
                    LOG.info("Raft leadership of term {} lost", leadershipTerm);
                    unregisterLeadership();
                    busySince = 0;   // a later term starts without this one's pending change
                }
                if (leadership == null && term > 0) {
                    final long t = term;
                    leadershipTerm = t;
                    LOG.info("Raft leadership established for term {}", t);
                    leadership = context.registerService(Leadership.class, () -> t, null);
                }
            }
            trackFailures();
            if (term > 0 && System.nanoTime() - lastReconcile > RECONCILE_EVERY.toNanos()) {
                lastReconcile = System.nanoTime();
                reconcile(node);
            }
            Thread.sleep(LEADERSHIP_POLL.toMillis());
        }
        // Stopped: deactivated, halted after a failed apply, or closed by Ratis itself. In the last case no listener
        // withdraws the Replicator, so do it here; for the others this repeats an unregister, which is harmless.
        unregister();
        reportStop(node);
    }

    /**
     * Says once why Raft stopped when nobody asked it to (the operator's only clue: Ratis may log nothing), and closes
     * what is left of it: a Ratis server whose group closed would keep its port open to the leader's appends, which it
     * can only refuse, several times a second.
     */
    private void reportStop(RaftNode n) {
        synchronized (this) {
            if (deactivated) {
                return;
            }
        }
        LOG.error("The Raft server stopped: {}; this server serves no writes and stale reads until the agent "
                + "restarts", n.stopReason());
        n.close();
    }

    private void unregisterLeadership() {
        if (leadership != null) {
            try {
                leadership.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the bundle is stopping
            }
            leadership = null;
            leadershipTerm = -1;
        }
    }

    private synchronized void register() {
        RaftNode node = this.node;
        if (deactivated || node == null || !node.isRunning()) {
            return;
        }
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("caravan.raft.peers", node.peers().toArray(String[]::new));
        registration = context.registerService(new String[] {Replicator.class.getName(),
                RaftConfiguration.class.getName(), MetricSource.class.getName()},
                new RaftServices(node, this::rpcAddressOf, this::setDeadServerCleanup), properties);
        LOG.info("Raft ready after {} ms: leader {}, last applied index {}; Replicator registered",
                (System.nanoTime() - activatedNanos) / 1_000_000, node.leaderAddress().orElse("?"),
                node.lastAppliedIndex());
    }

    private synchronized void unregister() {
        unregisterLeadership();
        if (registration != null) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the bundle is stopping: the framework withdrew it already
            }
            registration = null;
        }
    }

    /**
     * A server's RPC address by node ID, as membership gossips it; this server's own from its configuration when
     * membership is not running. Never its Raft address: that is not an RPC server.
     */
    private Optional<String> rpcAddressOf(String nodeId) {
        ClusterMembership m = membership;
        Optional<String> known = m == null ? Optional.empty() : m.rpcAddressOf(nodeId);
        if (known.isEmpty() && nodeId.equals(configured.self().id()) && !config.rpc_advertise().isBlank()) {
            return Optional.of(config.rpc_advertise());
        }
        return known;
    }

    private void setDeadServerCleanup(boolean enabled, int quorum) {
        if (enabled != cleanupDeadServers || quorum != minQuorum) {
            LOG.info("Autopilot dead-server cleanup {} (min quorum {})", enabled ? "on" : "off", quorum);
        }
        cleanupDeadServers = enabled;
        minQuorum = quorum;
    }

    /** Remembers since when each server has been seen failed, for the dead-server cleanup. */
    private void trackFailures() {
        ClusterMembership m = membership;
        if (m == null) {
            return;
        }
        long now = System.nanoTime();
        List<String> failed = m.failedServers();
        failedSince.keySet().retainAll(failed);
        failed.forEach(id -> failedSince.putIfAbsent(id, now));
    }

    /** On the leader: one step of bringing the Raft group in line with membership (autopilot's job in Nomad). */
    private void reconcile(RaftNode node) {
        ClusterMembership m = membership;
        if (m == null) {
            return;
        }
        long now = System.nanoTime();
        Map<String, Duration> failedFor = new HashMap<>();
        failedSince.forEach((id, since) -> failedFor.put(id, Duration.ofNanos(now - since)));
        List<Peer> current = node.configuration();
        if (!cleanupDeadServers) {
            failedFor.clear();   // no failed server has been failed long enough: only servers that left go
        }
        Optional<List<Peer>> next = m.nextConfiguration(configured.self(), current, failedFor);
        if (next.isEmpty()) {
            return;
        }
        if (!RaftMembers.autopilotAllows(current, next.get(), m.failedServers(), cleanupDeadServers, minQuorum)) {
            return;
        }
        if (!next.get().equals(lastAttempt)) {   // retried every second until it is made: said once
            LOG.info("Raft configuration follows membership: {} -> {}", current, next.get());
            lastAttempt = next.get();
        }
        try {
            node.setPeers(next.get()).toCompletableFuture().get(CHANGE_WAIT.toSeconds(), TimeUnit.SECONDS);
            lastAttempt = null;
            lastChangeFailure = null;
            busySince = 0;
        } catch (Exception e) {
            if (!RaftNode.changeInProgress(e)) {
                busySince = 0;
            } else if (busySince == 0) {
                busySince = now;
            } else if (now - busySince > STUCK_AFTER.toNanos()) {
                busySince = 0;
                stepDown(node);
                return;
            }
            // Retried every second: say each distinct failure once, not once a second.
            String failure = next.get() + ": " + (e instanceof ExecutionException && e.getCause() != null
                    ? e.getCause().getMessage() : e.toString());
            if (!failure.equals(lastChangeFailure)) {
                LOG.warn("Raft configuration change to {} failed; retrying", failure);
                lastChangeFailure = failure;
            }
        }
    }

    /**
     * Ratis refused every change for {@link #STUCK_AFTER} because one is "in progress" that it never finishes (seen
     * once after a failed add); leadership is the only state that holds it, so this leader gives it up and the next
     * one starts without it.
     */
    private void stepDown(RaftNode node) {
        LOG.warn("Raft configuration changes were refused for {} s as another change is still in progress: this "
                + "leader steps down so that the next one starts without it", STUCK_AFTER.toSeconds());
        try {
            node.stepDown().toCompletableFuture().get(CHANGE_WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("Raft leader step-down failed: {}", e.getCause() != null ? e.getCause().getMessage() : e);
        }
    }

    /**
     * A reload: every key read here is restart-only in the agent's schema (identity, addresses, directories, gossip key,
     * {@code bootstrap_expect}, the Raft log's snapshot settings), so none changes through a reload. Without this method DS would restart the component
     * on every change of the server's PID.
     */
    @Modified
    void modified() {
        // nothing to apply
    }

    @Deactivate
    void deactivate() throws InterruptedException {
        synchronized (this) {
            deactivated = true;
        }
        unregister();
        RaftNode n = node;
        if (n != null) {
            n.close();   // the starter sees it within a poll; interrupting it could break Ratis' file channels
        }
        starter.join(STOP_WAIT_MS);
        awaitTransportThreads();
    }

    /**
     * gRPC shuts its shared event loops down a second after the last Raft channel closes, on threads that still load
     * classes from this bundle as they end. Waiting for them (bounded) keeps the bundle's class loader valid until
     * they are gone; otherwise every agent shutdown logged a {@code NoClassDefFoundError} with a stack trace.
     */
    private static void awaitTransportThreads() throws InterruptedException {
        long deadline = System.nanoTime() + TRANSPORT_STOP_WAIT.toNanos();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                LOG.debug("gRPC transport threads still running after {}", TRANSPORT_STOP_WAIT);
                return;
            }
            if (t.getName().startsWith("grpc-")) {
                t.join(left);
            }
        }
    }
}
