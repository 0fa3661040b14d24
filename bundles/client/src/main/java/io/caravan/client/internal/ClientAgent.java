package io.caravan.client.internal;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.caravan.agent.AgentInfo;
import io.caravan.api.endpoint.NodeEndpoint;
import io.caravan.api.model.Allocation;
import io.caravan.api.timer.SharedTimer;
import io.caravan.client.ClientAllocs;
import io.caravan.metrics.MetricSink;
import io.caravan.metrics.MetricSource;
import io.caravan.plugin.api.driver.ExecSession;
import io.caravan.plugin.api.driver.TaskDriver;
import io.caravan.plugin.api.fingerprint.Fingerprinter;
import io.caravan.tls.AgentTls;
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

/**
 * The client agent as a DS component: exists while the agent is a client (PID {@code io.caravan.client}). Drivers
 * and fingerprinters come and go as services (whiteboard, {@code caravan.driver.name} /
 * {@code caravan.fingerprint.name} + {@code caravan.fingerprint.phase}); the servers are reached through whatever
 * {@link NodeEndpoint} is bound — the local server's in a dev agent, an RPC client's otherwise — and the client
 * waits while there is none. A changed {@code client} block (a reload) is applied to the running client
 * ({@link Client#reconfigure}): neither it nor its task runners restart.
 */
@Component(service = {ClientAllocs.class, MetricSource.class}, configurationPid = "io.caravan.client",
        configurationPolicy = ConfigurationPolicy.REQUIRE, immediate = true)
@Designate(ocd = ClientConfig.class)
public final class ClientAgent implements ClientAllocs, MetricSource {
    static final String DRIVER_NAME = "caravan.driver.name";
    static final String FINGERPRINT_NAME = "caravan.fingerprint.name";
    static final String FINGERPRINT_PHASE = "caravan.fingerprint.phase";
    /** {@code client.intro_token}, or what {@code -client-intro-token} / {@code NOMAD_CLIENT_INTRO_TOKEN} set. */
    static final String INTRO_TOKEN = "intro.token";

    private final Client client;
    private final Path dataDir;

    @Activate
    public ClientAgent(Map<String, Object> properties, @Reference(name = "agent") AgentInfo agent,
                       @Reference(name = "tls") AgentTls tls, @Reference(name = "timer") SharedTimer timer) {
        dataDir = agent.dataDir();
        ClientSettings settings = ClientSettings.from(properties, dataDir);
        client = new Client(settings, new Client.AgentIdentity(agent.nodeId(), agent.name(), agent.datacenter(),
                agent.advertiseHttp(), tls.settings().http(), agent.version(), agent.dataDir()), Clock.systemUTC(),
                Client.Timing.DEFAULT, timer);
        introToken(properties);
        client.start();
    }

    @Modified
    void modified(Map<String, Object> properties) {
        client.reconfigure(ClientSettings.from(properties, dataDir));
        introToken(properties);
    }

    private void introToken(Map<String, Object> properties) {
        Object introToken = properties.get(INTRO_TOKEN);
        client.introToken(introToken == null ? "" : String.valueOf(introToken));
    }

    @Deactivate
    void deactivate() {
        client.close();
    }

    @Override
    public void sample(MetricSink sink) {
        client.sample(sink);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindEndpoint(NodeEndpoint endpoint) {
        client.endpoint(endpoint);
    }

    void unbindEndpoint(NodeEndpoint endpoint) {
        if (client.registration().endpoint() == endpoint) {
            client.endpoint(null);
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindDriver(TaskDriver driver, Map<String, Object> props) {
        String name = string(props, DRIVER_NAME);
        if (name != null) {
            client.bindDriver(name, driver);
        }
    }

    void unbindDriver(TaskDriver driver, Map<String, Object> props) {
        String name = string(props, DRIVER_NAME);
        if (name != null) {
            client.unbindDriver(name, driver);
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindFingerprinter(Fingerprinter fingerprinter, Map<String, Object> props) {
        String name = string(props, FINGERPRINT_NAME);
        client.bindFingerprinter(name == null ? fingerprinter.getClass().getName() : name,
                string(props, FINGERPRINT_PHASE), fingerprinter);
    }

    void unbindFingerprinter(Fingerprinter fingerprinter) {
        client.unbindFingerprinter(fingerprinter);
    }

    private static String string(Map<String, Object> props, String key) {
        Object value = props.get(key);
        return value == null ? null : String.valueOf(value);
    }

    @Override
    public String nodeId() {
        return client.nodeId();
    }

    @Override
    public Set<String> allocIds() {
        return client.allocIds();
    }

    @Override
    public Optional<Path> allocDir(String allocId) {
        return client.allocDir(allocId);
    }

    @Override
    public Optional<String> namespace(String allocId) {
        return client.namespace(allocId);
    }

    @Override
    public Optional<Allocation> alloc(String allocId) {
        return client.alloc(allocId);
    }

    @Override
    public void restart(String allocId, String taskName) {
        client.restart(allocId, taskName);
    }

    @Override
    public boolean gc(String allocId) {
        return client.gc(allocId);
    }

    @Override
    public void signal(String allocId, String taskName, String signal) {
        client.signal(allocId, taskName, signal);
    }

    @Override
    public ExecSession exec(String allocId, String taskName, List<String> argv, boolean tty) {
        return client.exec(allocId, taskName, argv, tty);
    }

    @Override
    public boolean fsIsolated(String allocId, String taskName) {
        return client.fsIsolated(allocId, taskName);
    }

    @Override
    public Map<String, List<Long>> taskPids(String allocId) {
        return client.taskPids(allocId);
    }

    @Override
    public Map<String, ?> checks(String allocId) {
        return client.checks(allocId);
    }
}
