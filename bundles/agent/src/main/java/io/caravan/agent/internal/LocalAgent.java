package io.caravan.agent.internal;

import java.nio.file.Path;
import java.nio.file.Paths;

import io.caravan.agent.AgentInfo;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The {@link AgentInfo} service. Its identity keys are restart-only; a reload swaps in the new configuration for the
 * live ones ({@code @Modified}), so the many components that reference this service are not restarted with it — the
 * client and the server's routes among them.
 */
@Component(configurationPid = PidTranslator.AGENT_PID, configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = AgentPidConfig.class)
public final class LocalAgent implements AgentInfo {
    private volatile AgentPidConfig config;

    @Activate
    public LocalAgent(AgentPidConfig config) {
        this.config = config;
    }

    @Modified
    void modified(AgentPidConfig changed) {
        this.config = changed;
    }

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public String region() {
        return config.region();
    }

    @Override
    public String datacenter() {
        return config.datacenter();
    }

    @Override
    public String nodeId() {
        return config.node_id();
    }

    @Override
    public boolean server() {
        return config.server_enabled();
    }

    @Override
    public boolean client() {
        return config.client_enabled();
    }

    @Override
    public boolean devMode() {
        return config.dev_mode();
    }

    @Override
    public String version() {
        return config.version();
    }

    @Override
    public Path dataDir() {
        return Paths.get(config.data_dir());
    }

    @Override
    public String advertiseHttp() {
        return config.advertise_http();
    }

    @Override
    public String advertiseRpc() {
        return config.advertise_rpc();
    }

    @Override
    public String advertiseSerf() {
        return config.advertise_serf();
    }
}
