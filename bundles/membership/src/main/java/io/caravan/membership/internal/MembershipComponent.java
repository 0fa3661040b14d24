package io.caravan.membership.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

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

import io.caravan.agent.AgentShutdown;
import io.caravan.api.timer.SharedTimer;
import io.caravan.membership.Member;
import io.caravan.membership.Membership;
import io.caravan.membership.MembershipException;
import io.caravan.plugin.api.discover.DiscoverResolver;
import io.caravan.plugin.api.discover.Discoverer;

/**
 * Runs this server's {@link Gossip} while the agent is a server (PID {@code io.caravan.server}), and retries
 * {@code retry.join} in the background until one attempt reaches somebody or {@code retry.max} attempts are used.
 * Discovery strings ({@code provider=...}) are resolved on every attempt through the {@link Discoverer} whose
 * {@code caravan.discover.provider} matches. A changed configuration restarts the component. Deactivation stops
 * gossip without leaving: leaving is {@link Membership#leave()}.
 *
 * <p>{@link Membership} is registered by hand, and only when the PID has {@code serf.bind}: servers whose agent does
 * not configure serf yet neither listen on 4648 nor fail activation.
 */
@Component(configurationPid = "io.caravan.server", configurationPolicy = ConfigurationPolicy.REQUIRE, service = {})
@Designate(ocd = ServerPidConfig.class)
public final class MembershipComponent implements Membership {
    private static final Logger LOG = LoggerFactory.getLogger(MembershipComponent.class);
    /** How long the first join attempt waits for the discovery providers it names to register. */
    static final Duration PROVIDER_WAIT = Duration.ofSeconds(10);

    private final DiscoverResolver discoverers = new DiscoverResolver();
    private volatile AgentShutdown shutdown;
    private final Gossip gossip;
    private final ScheduledExecutorService joiner;
    private ServiceRegistration<Membership> registration;

    @Activate
    public MembershipComponent(ServerPidConfig config, BundleContext context, @Reference SharedTimer timer)
            throws IOException {
        if (config.serf_bind().isBlank()) {
            // The agent writes serf.bind once it configures serf; until then no gossip and no service.
            LOG.info("Serf membership not started: io.caravan.server has no serf.bind");
            this.gossip = null;
            this.joiner = null;
            return;
        }
        GossipSettings settings = settings(config);
        this.gossip = new Gossip(settings, timer.timer("caravan-serf-gossip"));
        gossip.start();
        List<String> retryJoin = new ArrayList<>();
        for (String s : config.retry_join()) {
            if (s != null && !s.isBlank()) {
                retryJoin.add(s.trim());
            }
        }
        if (retryJoin.isEmpty()) {
            joiner = null;
        } else {
            joiner = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "caravan-serf-retry-join");
                t.setDaemon(true);
                return t;
            });
            long interval = config.retry_interval_ms() > 0 ? config.retry_interval_ms() : 30_000;
            joiner.execute(new RetryJoin(retryJoin, interval, Math.max(0, config.retry_max())));
        }
        registration = context.registerService(Membership.class, this, null);
    }

    /**
     * A reload: every key read here is restart-only in the agent's schema (identity, addresses, gossip key, the join
     * settings: joining happens at start), so none changes through a reload. Without this method DS would restart the component
     * on every change of the server's PID.
     */
    @Modified
    void modified() {
        // nothing to apply
    }

    @Deactivate
    void deactivate() {
        if (registration != null) {
            try {
                registration.unregister();
            } catch (IllegalStateException e) {
                // already gone with the bundle
            }
        }
        if (joiner != null) {
            joiner.shutdownNow();
        }
        if (gossip != null) {
            gossip.close();
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void addDiscoverer(Discoverer discoverer, Map<String, Object> properties) {
        discoverers.add(discoverer, properties);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void bindShutdown(AgentShutdown agent) {
        shutdown = agent;
    }

    void unbindShutdown(AgentShutdown agent) {
        if (shutdown == agent) {
            shutdown = null;
        }
    }

    void removeDiscoverer(Discoverer discoverer) {
        discoverers.remove(discoverer);
    }

    static GossipSettings settings(ServerPidConfig c) {
        String region = c.region().isBlank() ? "global" : c.region();
        if (c.name().isBlank()) {
            throw new IllegalArgumentException("io.caravan.server: name is required for serf membership");
        }
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("role", "nomad");
        tags.put("region", region);
        tags.put("dc", c.datacenter());
        tags.put("build", c.version());
        tags.put("id", c.node_id());
        if (!c.rpc_advertise().isBlank()) {
            HostPort rpc = HostPort.parse(c.rpc_advertise(), 4647);
            tags.put("rpc_addr", rpc.host());
            tags.put("port", Integer.toString(rpc.port()));
        }
        if (!c.raft_addr().isBlank()) {
            tags.put("raft_addr", c.raft_addr());
        }
        if (c.bootstrap_expect() > 0) {
            tags.put("expect", Long.toString(c.bootstrap_expect()));
        }
        if (c.bootstrap_expect() == 1) {
            tags.put("bootstrap", "1");
        }
        tags.put("vsn", "1");
        tags.put("raft_vsn", "3");
        return GossipSettings.of(c.name() + "." + region, c.serf_bind())
                .withAdvertise(c.serf_advertise())
                .withTags(tags)
                .withEncrypt(c.encrypt())
                .withSuspectTimeout(Duration.ofMillis(c.suspect_timeout_ms()));
    }

    /** The addresses of one attempt: plain entries as they are, discovery strings resolved now (port 4648). */
    List<String> resolve(List<String> entries) {
        return discoverers.resolve(entries, io.caravan.membership.Membership.DEFAULT_PORT,
                problem -> LOG.warn("retry_join: {}", problem));
    }

    /**
     * Before the first attempt: the discovery providers it names, whose bundles may start after this one (and bind
     * after activation), get {@link #PROVIDER_WAIT} to appear. False when interrupted (deactivated).
     */
    boolean awaitProviders(List<String> entries) {
        try {
            Set<String> missing = discoverers.awaitProviders(entries, PROVIDER_WAIT);
            if (!missing.isEmpty()) {
                LOG.warn("retry_join: no discovery provider {} after {} s", missing, PROVIDER_WAIT.toSeconds());
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private final class RetryJoin implements Runnable {
        private final List<String> entries;
        private final long intervalMs;
        private final int max;
        private int attempts;

        RetryJoin(List<String> entries, long intervalMs, int max) {
            this.entries = entries;
            this.intervalMs = intervalMs;
            this.max = max;
        }

        @Override
        public void run() {
            attempts++;
            if (attempts == 1 && !awaitProviders(entries)) {
                return;   // deactivated while waiting
            }
            List<String> addresses = resolve(entries);
            String why;
            if (addresses.isEmpty()) {
                why = "no addresses found";
            } else {
                try {
                    int n = gossip.join(addresses);
                    LOG.info("retry_join: joined {} server(s)", n);
                    return;
                } catch (MembershipException e) {
                    why = e.getMessage();
                } catch (IllegalStateException e) {
                    return; // stopped
                }
            }
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
            if (max > 0 && attempts >= max) {
                LOG.error("retry_join: giving up after {} attempt(s): {}", attempts, why);
                AgentShutdown agent = shutdown;
                if (agent != null) {   // as Nomad: an agent that cannot join within retry_max exits with 1
                    agent.shutdown(1, "Error joining the cluster: retry_join gave up after " + attempts
                            + " attempt(s): " + why);
                }
                return;
            }
            LOG.warn("retry_join: attempt {} failed, retrying in {} ms: {}", attempts, intervalMs, why);
            try {
                joiner.schedule(this, intervalMs, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // deactivated
            }
        }
    }

    // ---------------------------------------------------------------- Membership, delegated

    @Override
    public Member self() {
        return gossip.self();
    }

    @Override
    public List<Member> members() {
        return gossip.members();
    }

    @Override
    public int join(List<String> addresses) throws MembershipException {
        return gossip.join(addresses);
    }

    @Override
    public void leave() {
        gossip.leave();
    }

    @Override
    public boolean forceLeave(String name) {
        return gossip.forceLeave(name);
    }

    @Override
    public void setTags(java.util.Map<String, String> tags) {
        gossip.setTags(tags);
    }

    @Override
    public void addListener(Consumer<List<Member>> onChange) {
        gossip.addListener(onChange);
    }

    @Override
    public void removeListener(Consumer<List<Member>> onChange) {
        gossip.removeListener(onChange);
    }
}
