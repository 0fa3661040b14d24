package io.caravan.agent.internal;

import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.caravan.agent.AgentStats;
import io.caravan.agent.UnsupportedKey;
import io.caravan.agent.internal.config.NomadConfigView;
import io.caravan.agent.internal.config.Schema;
import io.caravan.api.json.NomadJson;

/**
 * The agent endpoints' wire shapes, built from {@link AgentPidConfig}. Field names become Nomad's through the
 * shared naming strategy ({@code advertiseAddrs → AdvertiseAddrs}, {@code acl → ACL}); {@code /v1/agent/self}
 * itself uses Nomad's lowercase top-level keys.
 */
final class AgentViews {
    private AgentViews() {
    }

    record Self(@JsonProperty("config") Map<String, Object> config, @JsonProperty("member") Member member,
                @JsonProperty("stats") Map<String, Map<String, String>> stats) {}

    record SelfConfig(String region, String datacenter, String nodeName, String dataDir, String pluginDir,
                      String logLevel, String bindAddr, boolean enableDebug, Ports ports, Addresses addresses,
                      Addresses advertiseAddrs, ServerView server, ClientView client, AclView acl,
                      boolean leaveOnInt, boolean leaveOnTerm, boolean devMode, VersionView version,
                      List<String> files) {}

    record Ports(int http, int rpc, int serf) {}

    record Addresses(String http, String rpc, String serf) {}

    record ServerView(boolean enabled, int bootstrapExpect) {}

    record ClientView(boolean enabled, List<String> servers) {}

    record AclView(boolean enabled) {}

    record VersionView(String version, String versionPrerelease, String versionMetadata, String revision) {
        static VersionView of(String full) {
            int dash = full.indexOf('-');
            return dash < 0 ? new VersionView(full, "", "", "")
                    : new VersionView(full.substring(0, dash), full.substring(dash + 1), "", "");
        }
    }

    /** A serf member as Nomad reports it; zero values on a client-only agent. */
    record Member(String name, String addr, int port, Map<String, String> tags, String status, int protocolMin,
                  int protocolMax, int protocolCur, int delegateMin, int delegateMax, int delegateCur) {
        static final Member NONE = new Member("", "", 0, Map.of(), "", 0, 0, 0, 0, 0, 0);
    }

    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    record Health(@JsonProperty("client") Check client, @JsonProperty("server") Check server) {}

    record Check(@JsonProperty("ok") boolean ok, @JsonProperty("message") String message) {}

    /**
     * The whole configuration in force as Nomad shows it, with the agent's resolved values (addresses, data dir,
     * version) from its PID on top, so an edit made in Config Admin shows too, and {@code Unsupported}: the keys it
     * sets that Caravan does not act on yet.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> selfConfig(Map<String, Object> configuration, List<UnsupportedKey> unsupported,
                                          AgentPidConfig c) {
        Map<String, Object> resolved = NomadJson.mapper().convertValue(config(c), Map.class);
        Map<String, Object> out = NomadConfigView.overlay(NomadConfigView.render(configuration,
                Schema.nomadAgent().root()), resolved);
        // Caravan's own: what the configuration sets that is not acted on yet ([] when nothing).
        out.put("Unsupported", unsupported);
        return out;
    }

    static SelfConfig config(AgentPidConfig c) {
        return new SelfConfig(c.region(), c.datacenter(), c.name(), c.data_dir(), c.plugin_dir(), c.log_level(),
                c.bind_addr(), c.enable_debug(), new Ports(c.ports_http(), c.ports_rpc(), c.ports_serf()),
                new Addresses(c.addresses_http(), c.addresses_rpc(), c.addresses_serf()),
                new Addresses(c.advertise_http(), c.advertise_rpc(), c.advertise_serf()),
                new ServerView(c.server_enabled(), c.server_bootstrap_expect()),
                new ClientView(c.client_enabled(), Arrays.asList(c.client_servers())), new AclView(c.acl_enabled()),
                c.leave_on_interrupt(), c.leave_on_terminate(), c.dev_mode(), VersionView.of(c.version()),
                Arrays.asList(c.files()));
    }

    /** The local server as a serf member; named {@code <node>.<region>} as Nomad names server members. */
    static Member member(AgentPidConfig c) {
        if (!c.server_enabled()) {
            return Member.NONE;
        }
        HostAndPort serf = HostAndPort.of(c.advertise_serf());
        HostAndPort rpc = HostAndPort.of(c.advertise_rpc());
        Map<String, String> tags = new TreeMap<>();
        tags.put("role", "nomad");
        tags.put("region", c.region());
        tags.put("dc", c.datacenter());
        tags.put("build", c.version());
        tags.put("port", Integer.toString(rpc.port()));
        tags.put("rpc_addr", rpc.host());
        tags.put("id", c.node_id());
        tags.put("raft_vsn", "3");
        tags.put("vsn", "1");
        tags.put("mvn", "1");
        tags.put("expect", Integer.toString(c.server_bootstrap_expect()));
        if (c.server_bootstrap_expect() == 1) {
            tags.put("bootstrap", "1");
        }
        return new Member(c.name() + "." + c.region(), serf.host(), serf.port(), tags, "alive", 1, 5, 2, 2, 5, 4);
    }

    /**
     * @param contributed what running components know (e.g. the server's {@code leader} and {@code leader_addr}),
     *     merged over the answers from configuration
     */
    static Map<String, Map<String, String>> stats(AgentPidConfig c, Collection<AgentStats> contributed) {
        Map<String, Map<String, String>> stats = new LinkedHashMap<>();
        Map<String, String> nomad = new TreeMap<>();
        nomad.put("server", Boolean.toString(c.server_enabled()));
        if (c.server_enabled()) {
            // Until the server side reports, this server knows of no leader.
            nomad.put("leader", "false");
            nomad.put("leader_addr", "");
            nomad.put("bootstrap", Boolean.toString(c.server_bootstrap_expect() == 1));
            nomad.put("known_regions", "1");
        }
        stats.put("nomad", nomad);
        Runtime rt = Runtime.getRuntime();
        Map<String, String> runtime = new TreeMap<>();
        runtime.put("arch", System.getProperty("os.arch"));
        runtime.put("version", "java" + System.getProperty("java.version"));
        runtime.put("kernel.name", System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT));
        runtime.put("cpu_count", Integer.toString(rt.availableProcessors()));
        runtime.put("max_procs", Integer.toString(rt.availableProcessors()));
        runtime.put("goroutines", Integer.toString(Thread.activeCount()));
        runtime.put("heap_used_bytes", Long.toString(rt.totalMemory() - rt.freeMemory()));
        stats.put("runtime", runtime);
        if (c.client_enabled()) {
            Map<String, String> client = new TreeMap<>();
            client.put("node_id", c.node_id());
            client.put("known_servers", String.join(",", knownServers(c)));
            stats.put("client", client);
        }
        for (AgentStats part : contributed) {
            stats.computeIfAbsent(part.section(), k -> new TreeMap<>()).putAll(part.stats());
        }
        return stats;
    }

    /** A client's servers: those configured, or the local server in a combined agent. */
    static List<String> knownServers(AgentPidConfig c) {
        if (c.client_servers().length > 0) {
            return Arrays.asList(c.client_servers());
        }
        return c.server_enabled() ? List.of(c.advertise_rpc()) : List.of();
    }

    record HostAndPort(String host, int port) {
        static HostAndPort of(String hostPort) {
            int colon = hostPort.lastIndexOf(':');
            if (colon < 0) {
                return new HostAndPort(hostPort, 0);
            }
            String host = hostPort.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            return new HostAndPort(host, Integer.parseInt(hostPort.substring(colon + 1)));
        }
    }
}
