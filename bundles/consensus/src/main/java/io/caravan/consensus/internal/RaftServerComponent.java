package io.caravan.consensus.internal;

import java.time.Duration;
import java.util.Dictionary;
import java.util.Hashtable;

import io.caravan.consensus.CommandHandler;
import io.caravan.consensus.Leadership;
import io.caravan.consensus.Replicator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs this agent's Raft server while it is a server (PID {@code io.caravan.server} exists) and a
 * {@link CommandHandler} is registered. Ratis starts on a thread of its own, never in {@code @Activate}: election and
 * log replay take a while, and other bundles must not wait for them. The {@link Replicator} is registered by hand,
 * once the server is ready to write, because DS would register it at activation; it is withdrawn again if the server
 * stops. A changed configuration restarts the component (no {@code @Modified}): Raft settings cannot change in place.
 */
@Component(configurationPid = "io.caravan.server", configurationPolicy = ConfigurationPolicy.REQUIRE, service = {})
@Designate(ocd = ServerPidConfig.class)
public final class RaftServerComponent {
    private static final Logger LOG = LoggerFactory.getLogger(RaftServerComponent.class);
    private static final Duration READY_POLL = Duration.ofSeconds(1);
    private static final Duration LEADERSHIP_POLL = Duration.ofMillis(100);
    private static final long STOP_WAIT_MS = 10_000;

    private final BundleContext context;
    private final RaftNode node;
    private final Thread starter;
    private final long activatedNanos = System.nanoTime();
    private ServiceRegistration<Replicator> registration;   // guarded by this
    private boolean deactivated;                           // guarded by this
    private ServiceRegistration<Leadership> leadership;    // guarded by this
    private long leadershipTerm = -1;                      // guarded by this

    @Activate
    public RaftServerComponent(ServerPidConfig config, @Reference CommandHandler handler, BundleContext context) {
        this.context = context;
        RaftSettings settings = RaftSettings.fromConfig(config);
        this.node = new RaftNode(settings, handler, System::currentTimeMillis);
        node.onStop(this::unregister);
        this.starter = new Thread(this::startAndRegister, "caravan-raft-start");
        starter.setDaemon(true);
        starter.start();
    }

    private void startAndRegister() {
        try {
            node.start();
            while (!node.awaitReady(READY_POLL)) {
                if (!node.isRunning()) {
                    return;
                }
                LOG.debug("Raft server waits for a leader; peers {}", node.peers());
            }
            register();
            followLeadership();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            if (node.isRunning()) {
                LOG.error("The Raft server did not start; this agent cannot serve writes", e);
            }
        }
    }

    /**
     * Registers {@link Leadership} while this server leads. Polled: Ratis tells of leader changes before the new
     * leader has applied its predecessor's entries, and a poll at this period costs nothing next to an election.
     */
    private void followLeadership() throws InterruptedException {
        while (node.isRunning()) {
            long term = node.leaderTerm();
            synchronized (this) {
                if (deactivated) {
                    return;
                }
                if (leadership != null && leadershipTerm != term) {
                    LOG.info("Raft leadership of term {} lost", leadershipTerm);
                    unregisterLeadership();
                }
                if (leadership == null && term > 0) {
                    final long t = term;
                    leadershipTerm = t;
                    LOG.info("Raft leadership established for term {}", t);
                    leadership = context.registerService(Leadership.class, () -> t, null);
                }
            }
            Thread.sleep(LEADERSHIP_POLL.toMillis());
        }
        // Stopped: deactivated, halted after a failed apply, or closed by Ratis itself. In the last case no listener
        // withdraws the Replicator, so do it here; for the others this repeats an unregister, which is harmless.
        unregister();
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
        if (deactivated || !node.isRunning()) {
            return;
        }
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("caravan.raft.peers", node.peers().toArray(String[]::new));
        registration = context.registerService(Replicator.class, node, properties);
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

    @Deactivate
    void deactivate() throws InterruptedException {
        synchronized (this) {
            deactivated = true;
        }
        unregister();
        node.close();   // the starter sees it within a poll; interrupting it could break Ratis' file channels
        starter.join(STOP_WAIT_MS);
    }
}
