package io.caravan.client.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.caravan.agent.AgentInfo;
import io.caravan.client.internal.state.ClientStateStore;
import io.caravan.rpc.Rpc;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the servers a client-only agent learned at run time (servers' replies, {@code server_join} discovery) in
 * {@code <state_dir>/servers.json}, as Nomad keeps them in its client state, and hands them back to the RPC layer,
 * after the configured ones, when the agent starts again: a client whose configured servers have gone still finds the
 * others. Polled every {@link #SAVE_EVERY}: the RPC layer tells nobody when its list changes, and the list is short.
 * Inert on an agent that is also a server (its client uses its own cluster's servers).
 */
@Component(configurationPid = "io.caravan.client", configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = {}, immediate = true)
public final class KnownServers {
    static final Duration SAVE_EVERY = Duration.ofSeconds(2);
    private static final Logger LOG = LoggerFactory.getLogger(KnownServers.class);

    private final Rpc rpc;
    private final ClientStateStore store;
    private final ScheduledExecutorService saver;
    private List<String> saved;   // guarded by this

    @Activate
    public KnownServers(Map<String, Object> properties, @Reference AgentInfo agent, @Reference Rpc rpc) {
        this(rpc, new ClientStateStore(ClientSettings.from(properties, agent.dataDir()).stateDir()), agent.server());
    }

    KnownServers(Rpc rpc, ClientStateStore store, boolean server) {
        this.rpc = rpc;
        this.store = store;
        if (server) {
            saver = null;
            return;
        }
        List<String> known = store.servers();
        if (!known.isEmpty()) {
            List<String> merged = new ArrayList<>(rpc.servers());
            known.stream().filter(a -> !merged.contains(a)).forEach(merged::add);
            rpc.setServers(merged);
            LOG.info("Client: servers known before the restart {}; servers now {}", known, merged);
        }
        synchronized (this) {
            saved = known;
        }
        saver = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "caravan-client-servers");
            t.setDaemon(true);
            return t;
        });
        saver.scheduleWithFixedDelay(this::save, SAVE_EVERY.toMillis(), SAVE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Writes the RPC layer's list when it holds other servers than the file (order aside: calls reorder it). */
    synchronized void save() {
        List<String> now = rpc.servers();
        if (now.isEmpty() || Set.copyOf(now).equals(Set.copyOf(saved))) {
            return;
        }
        try {
            store.saveServers(now);
            saved = now;
        } catch (RuntimeException e) {
            LOG.warn("Client: cannot save the known servers: {}", e.getMessage());
            saved = now;   // said once; the next change tries again
        }
    }

    /** A reload: the state dir, all this reads, is restart-only; without this DS would restart the component. */
    @Modified
    void modified() {
        // nothing to apply
    }

    @Deactivate
    void deactivate() {
        if (saver != null) {
            saver.shutdownNow();
            save();
        }
    }
}
