package io.caravan.agent.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One layer of agent configuration, in Nomad's keys: the defaults, the {@code -dev} defaults, each {@code -config}
 * file and the flags are each one, and {@link #merge} lays a later one over an earlier one as Nomad does (a value
 * that is set wins; lists and maps are merged). {@code null} means "not set in this layer".
 */
record AgentConfig(
        String region,
        String datacenter,
        String name,
        @JsonProperty("data_dir") String dataDir,
        @JsonProperty("plugin_dir") String pluginDir,
        @JsonProperty("bind_addr") String bindAddr,
        @JsonProperty("log_level") String logLevel,
        Ports ports,
        Addresses addresses,
        Addresses advertise,
        @JsonProperty("leave_on_interrupt") Boolean leaveOnInterrupt,
        @JsonProperty("leave_on_terminate") Boolean leaveOnTerminate,
        @JsonProperty("disable_update_check") Boolean disableUpdateCheck,
        @JsonProperty("enable_debug") Boolean enableDebug,
        @JsonProperty("http_api_response_headers") Map<String, String> httpApiResponseHeaders,
        Server server,
        Client client,
        Acl acl,
        Ui ui,
        // Not a Nomad key: set by -dev only.
        @com.fasterxml.jackson.annotation.JsonIgnore Boolean devMode) {

    static final AgentConfig EMPTY = new AgentConfig(null, null, null, null, null, null, null, null, null, null,
            null, null, null, null, null, null, null, null, null, null);

    record Ports(Integer http, Integer rpc, Integer serf) {
        Ports merge(Ports later) {
            return later == null ? this : new Ports(pick(later.http, http), pick(later.rpc, rpc),
                    pick(later.serf, serf));
        }
    }

    /** Used for both {@code addresses} (bind) and {@code advertise}. */
    record Addresses(String http, String rpc, String serf) {
        Addresses merge(Addresses later) {
            return later == null ? this : new Addresses(pick(later.http, http), pick(later.rpc, rpc),
                    pick(later.serf, serf));
        }
    }

    record ServerJoin(@JsonProperty("retry_join") List<String> retryJoin,
                      @JsonProperty("retry_max") Integer retryMax,
                      @JsonProperty("retry_interval") String retryInterval) {
        ServerJoin merge(ServerJoin later) {
            return later == null ? this : new ServerJoin(concat(retryJoin, later.retryJoin),
                    pick(later.retryMax, retryMax), pick(later.retryInterval, retryInterval));
        }
    }

    record Server(Boolean enabled,
                  @JsonProperty("bootstrap_expect") Integer bootstrapExpect,
                  String encrypt,
                  @JsonProperty("server_join") ServerJoin serverJoin,
                  @JsonProperty("retry_join") List<String> retryJoin) {
        Server merge(Server later) {
            return later == null ? this : new Server(pick(later.enabled, enabled),
                    pick(later.bootstrapExpect, bootstrapExpect), pick(later.encrypt, encrypt),
                    mergeNullable(serverJoin, later.serverJoin, ServerJoin::merge), concat(retryJoin, later.retryJoin));
        }

        /** The legacy {@code retry_join} and {@code server_join.retry_join}, together. */
        List<String> allRetryJoin() {
            return concat(retryJoin, serverJoin == null ? null : serverJoin.retryJoin);
        }
    }

    record Client(Boolean enabled, List<String> servers) {
        Client merge(Client later) {
            return later == null ? this : new Client(pick(later.enabled, enabled), concat(servers, later.servers));
        }
    }

    record Acl(Boolean enabled) {
        Acl merge(Acl later) {
            return later == null ? this : new Acl(pick(later.enabled, enabled));
        }
    }

    /** Nomad's {@code ui} block, plus Caravan's {@code console} for the OSGi web console. */
    record Ui(Boolean enabled, Console console) {
        Ui merge(Ui later) {
            return later == null ? this : new Ui(pick(later.enabled, enabled),
                    mergeNullable(console, later.console, Console::merge));
        }
    }

    record Console(String username, String password, @JsonProperty("allow_remote") Boolean allowRemote) {
        Console merge(Console later) {
            return later == null ? this : new Console(pick(later.username, username), pick(later.password, password),
                    pick(later.allowRemote, allowRemote));
        }
    }

    AgentConfig merge(AgentConfig later) {
        if (later == null) {
            return this;
        }
        return new AgentConfig(pick(later.region, region), pick(later.datacenter, datacenter),
                pick(later.name, name), pick(later.dataDir, dataDir), pick(later.pluginDir, pluginDir),
                pick(later.bindAddr, bindAddr), pick(later.logLevel, logLevel),
                mergeNullable(ports, later.ports, Ports::merge),
                mergeNullable(addresses, later.addresses, Addresses::merge),
                mergeNullable(advertise, later.advertise, Addresses::merge),
                pick(later.leaveOnInterrupt, leaveOnInterrupt), pick(later.leaveOnTerminate, leaveOnTerminate),
                pick(later.disableUpdateCheck, disableUpdateCheck), pick(later.enableDebug, enableDebug),
                mergeMaps(httpApiResponseHeaders, later.httpApiResponseHeaders),
                mergeNullable(server, later.server, Server::merge),
                mergeNullable(client, later.client, Client::merge),
                mergeNullable(acl, later.acl, Acl::merge),
                mergeNullable(ui, later.ui, Ui::merge),
                pick(later.devMode, devMode));
    }

    private static <T> T pick(T later, T earlier) {
        return later != null ? later : earlier;
    }

    private static <T> T mergeNullable(T earlier, T later, java.util.function.BinaryOperator<T> merge) {
        if (earlier == null) {
            return later;
        }
        return later == null ? earlier : merge.apply(earlier, later);
    }

    private static List<String> concat(List<String> earlier, List<String> later) {
        if (earlier == null || earlier.isEmpty()) {
            return later;
        }
        if (later == null || later.isEmpty()) {
            return earlier;
        }
        List<String> all = new ArrayList<>(earlier);
        later.stream().filter(s -> !all.contains(s)).forEach(all::add);
        return List.copyOf(all);
    }

    private static Map<String, String> mergeMaps(Map<String, String> earlier, Map<String, String> later) {
        if (earlier == null) {
            return later;
        }
        if (later == null) {
            return earlier;
        }
        Map<String, String> all = new LinkedHashMap<>(earlier);
        all.putAll(later);
        return all;
    }

    static AgentConfig of(java.util.function.Consumer<Builder> fill) {
        Builder b = new Builder();
        fill.accept(b);
        return b.build();
    }

    /** Mutable only while one layer is being assembled (defaults, flags). */
    static final class Builder {
        String region, datacenter, name, dataDir, pluginDir, bindAddr, logLevel;
        Ports ports;
        Addresses addresses, advertise;
        Boolean leaveOnInterrupt, leaveOnTerminate, disableUpdateCheck, enableDebug, devMode;
        Map<String, String> httpApiResponseHeaders;
        Server server;
        Client client;
        Acl acl;
        Ui ui;

        AgentConfig build() {
            return new AgentConfig(region, datacenter, name, dataDir, pluginDir, bindAddr, logLevel, ports, addresses,
                    advertise, leaveOnInterrupt, leaveOnTerminate, disableUpdateCheck, enableDebug,
                    httpApiResponseHeaders, server, client, acl, ui, devMode);
        }
    }
}
