package io.caravan.rpc.internal;

import java.time.Duration;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;

import io.caravan.api.endpoint.NodeEndpoint;
import io.caravan.api.timer.SharedTimer;
import io.caravan.plugin.api.discover.DiscoverResolver;
import io.caravan.plugin.api.discover.Discoverer;
import io.caravan.rpc.EndpointProvider;
import io.caravan.rpc.LeaderLocator;
import io.caravan.rpc.Rpc;
import io.caravan.rpc.RpcStream;
import io.caravan.rpc.StreamEndpointProvider;
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
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The agent's RPC: listens on the RPC port when this agent is a server; when it is a client only, calls the
 * configured servers and registers the {@link NodeEndpoint} the client runs through ({@link NodeRpc.Remote}).
 * Endpoints come from {@link EndpointProvider} services; a {@link LeaderLocator}, when a server has one, decides
 * forwarding. A reload changes only the client's server list here: mode, addresses, ports and the key take effect at
 * restart (Nomad's rule), so connections survive a reload. With {@code tls.rpc} the port and every dial use the
 * agent's TLS; a reload's new certificates apply to new connections.
 */
@Component(configurationPid = "io.caravan.agent", configurationPolicy = ConfigurationPolicy.REQUIRE, immediate = true,
        service = {})
// No @Designate: PID io.caravan.agent is designated by the agent bundle's complete definition (AgentPidConfig); this
// subset would replace it in the web console's form.
public final class RpcComponent implements Rpc {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RpcComponent.class);
    /** How long the first {@code server_join} attempt waits for the discovery providers it names to register. */
    static final Duration PROVIDER_WAIT = Duration.ofSeconds(10);
    static final String REMOTE = "caravan.rpc.remote";

    @ObjectClassDefinition(name = "Caravan RPC")
    @interface Config {
        String node_id() default "";

        boolean server_enabled() default false;

        boolean client_enabled() default false;

        @AttributeDefinition(description = "Address the RPC port binds (servers)")
        String addresses_rpc() default "0.0.0.0";

        int ports_rpc() default RpcEngine.DEFAULT_PORT;

        String[] client_servers() default {};

        /** Discovery strings ({@code provider=…}) naming servers, resolved until they give one (clients). */
        String[] client_retry_join() default {};

        long client_retry_interval_ms() default 30_000;

        /** The gossip key (servers only): servers prove themselves to each other with it. */
        String server_encrypt() default "";

        long leader_wait_ms() default 5_000;

        /** The longest call, blocking queries included (Nomad's max wait is 10 minutes). */
        long call_timeout_ms() default 11 * 60_000;
    }

    private final RpcEngine engine;
    private final DiscoverResolver discovery = new DiscoverResolver();
    private final java.util.concurrent.ScheduledExecutorService discovering =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "caravan-rpc-discover");
                t.setDaemon(true);
                return t;
            });
    private ServiceRegistration<NodeEndpoint> remote;
    private final ServiceRegistration<Rpc> registration;
    private List<String> configuredServers;

    @Activate
    public RpcComponent(Config config, BundleContext context, @Reference AgentTls tls,
                        @Reference SharedTimer shared) throws Exception {
        engine = new RpcEngine(config.client_enabled() ? config.node_id() : "",
                Duration.ofMillis(config.leader_wait_ms()), Duration.ofMillis(config.call_timeout_ms()),
                config.server_enabled() ? ServerProof.of(config.server_encrypt()) : ServerProof.NONE, tls.rpc(),
                shared.timer("caravan-rpc-timer"));
        try {
            if (config.server_enabled()) {
                engine.listen(config.addresses_rpc(), config.ports_rpc(), Duration.ofMillis(config.call_timeout_ms()));
            } else {
                configuredServers = Arrays.asList(config.client_servers());
                engine.setServers(configuredServers);
                if (config.client_retry_join().length > 0) {
                    List<String> entries = Arrays.asList(config.client_retry_join());
                    discovering.execute(() -> {
                        awaitProviders(entries);
                        discover(entries, config.client_retry_interval_ms());
                    });
                }
                if (config.client_enabled()) {
                    Dictionary<String, Object> props = new Hashtable<>();
                    props.put(REMOTE, Boolean.TRUE);
                    remote = context.registerService(NodeEndpoint.class, new NodeRpc.Remote(engine), props);
                }
            }
        } catch (Exception e) {
            engine.close();
            throw e;
        }
        // Registered by hand, not by DS: the endpoint providers bound while DS creates this component (the server's
        // AgentReloads, ClusterRoutes, RaftWrites) take Rpc themselves, and asking DS for a service still being
        // created is a circular reference it logs as an error. That happened whenever this component started after
        // them, as it does when it waits for the TLS bundle's AgentTls.
        registration = context.registerService(Rpc.class, this, null);
    }

    /** Only a changed {@code client.servers} replaces the list (which servers' replies otherwise keep current). */
    @Modified
    void modified(Config config) {
        List<String> configured = Arrays.asList(config.client_servers());
        if (!config.server_enabled() && !configured.equals(configuredServers)) {
            configuredServers = configured;
            engine.setServers(configured);
        }
    }

    /**
     * Gives the discovery providers the entries name, whose bundles may start after this one, a moment to register
     * before the first attempt, which would otherwise find none and wait a whole retry interval.
     */
    private void awaitProviders(List<String> entries) {
        try {
            Set<String> missing = discovery.awaitProviders(entries, PROVIDER_WAIT);
            if (!missing.isEmpty()) {
                LOG.warn("server_join: no discovery provider {} after {} s", missing, PROVIDER_WAIT.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Resolves the discovery strings until they name a server; servers' replies keep the list current after. */
    private void discover(List<String> entries, long retryMs) {
        List<String> found = discovery.resolve(entries, RpcEngine.DEFAULT_PORT,
                problem -> LOG.warn("server_join: {}", problem));
        if (found.isEmpty()) {
            LOG.info("server_join: no servers found yet; retrying in {} ms", retryMs);
            discovering.schedule(() -> discover(entries, retryMs), retryMs, java.util.concurrent.TimeUnit.MILLISECONDS);
            return;
        }
        List<String> servers = new java.util.ArrayList<>(engine.servers());
        found.stream().map(RpcEngine::withPort).filter(a -> !servers.contains(a)).forEach(servers::add);
        LOG.info("server_join: discovered servers {}", found);
        engine.setServers(servers);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = org.osgi.service.component.annotations.ReferencePolicyOption.GREEDY)
    void addDiscoverer(Discoverer discoverer, java.util.Map<String, Object> properties) {
        discovery.add(discoverer, properties);
    }

    void removeDiscoverer(Discoverer discoverer) {
        discovery.remove(discoverer);
    }

    @Deactivate
    void deactivate() throws Exception {
        try {
            registration.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the bundle is stopping
        }
        discovering.shutdownNow();
        if (remote != null) {
            try {
                remote.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the bundle is stopping
            }
        }
        engine.close();
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void bindEndpoints(EndpointProvider provider) {
        engine.dispatcher().add(provider.endpoints());
    }

    void unbindEndpoints(EndpointProvider provider) {
        engine.dispatcher().remove(provider.endpoints());
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void bindStreams(StreamEndpointProvider provider) {
        engine.dispatcher().addStreams(provider.streams());
    }

    void unbindStreams(StreamEndpointProvider provider) {
        engine.dispatcher().removeStreams(provider.streams());
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void bindLocator(LeaderLocator locator) {
        engine.dispatcher().setLocator(locator);
    }

    void unbindLocator(LeaderLocator locator) {
        engine.dispatcher().setLocator(null);
    }

    @Override
    public <R> CompletionStage<R> call(String method, Object request, Class<R> response) {
        return engine.call(method, request, response);
    }

    @Override
    public <R> CompletionStage<R> dispatch(String method, Object request, Class<R> response) {
        return engine.dispatch(method, request, response);
    }

    @Override
    public <R> CompletionStage<R> callAt(String address, String method, Object request, Class<R> response) {
        return engine.callAt(address, method, request, response);
    }

    @Override
    public <R> CompletionStage<R> callNode(String nodeId, String method, Object request, Class<R> response) {
        return engine.callNode(nodeId, method, request, response);
    }

    @Override
    public CompletionStage<RpcStream> openNodeStream(String nodeId, String method, Object request) {
        return engine.openNodeStream(nodeId, method, request);
    }

    @Override
    public CompletionStage<RpcStream> openStreamAt(String address, String method, Object request) {
        return engine.openStreamAt(address, method, request);
    }

    @Override
    public List<EndpointStats> stats() {
        return engine.stats();
    }

    @Override
    public List<String> servers() {
        return engine.servers();
    }

    @Override
    public void setServers(List<String> addresses) {
        engine.setServers(addresses);
    }
}
