package io.caravan.agent.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.caravan.agent.internal.config.ConfigView;
import io.caravan.agent.internal.sockaddr.Interfaces;
import io.caravan.agent.internal.sockaddr.SockaddrException;
import io.caravan.agent.internal.sockaddr.SockaddrTemplate;
import io.caravan.tls.TlsException;
import io.caravan.tls.TlsSettings;

/**
 * The resolved agent: what the merged configuration means for this process, with Nomad's cross-key rules checked
 * (modes, data dir, addresses, gossip key). Pure apart from reading network interfaces and the host name.
 */
record AgentSettings(
        String region, String datacenter, String name, Path dataDir, Path pluginDir, boolean devMode,
        String logLevel, boolean logJson, String bindAddr,
        int httpPort, int rpcPort, int serfPort,
        String httpAddr, String rpcAddr, String serfAddr,
        String advertiseHttp, String advertiseRpc, String advertiseSerf,
        boolean server, int bootstrapExpect, String encrypt, List<String> retryJoin,
        boolean client, List<String> servers,
        boolean aclEnabled, boolean leaveOnInterrupt, boolean leaveOnTerminate, boolean enableDebug,
        Map<String, String> responseHeaders,
        String consoleUser, String consolePassword, boolean consoleAllowRemote,
        List<Path> files, TlsSettings tls) {

    static final class InvalidConfigException extends Exception {
        private static final long serialVersionUID = 1L;

        InvalidConfigException(String message) {
            super(message);
        }
    }

    /**
     * @param config the merged configuration (defaults, files, flags)
     * @param dev whether {@code -dev} was given
     * @param devDataDir created by the caller for {@code -dev} when no data dir is configured
     * @param hostName the default node name
     */
    static AgentSettings resolve(ConfigView config, boolean dev, List<Path> files, Path devDataDir, String hostName)
            throws InvalidConfigException {
        return resolve(config, dev, files, devDataDir, hostName, Interfaces.system());
    }

    /** @param nics the host's addresses, for go-sockaddr templates and the default advertise address */
    static AgentSettings resolve(ConfigView config, boolean dev, List<Path> files, Path devDataDir, String hostName,
                                 Interfaces nics) throws InvalidConfigException {
        ConfigView c = config;
        boolean server = c.bool("server.enabled");
        boolean client = c.bool("client.enabled");
        if (!server && !client) {
            throw new InvalidConfigException("Must specify either server, client or dev mode for the agent.");
        }
        int bootstrapExpect = (int) c.integer("server.bootstrap_expect", 0);
        if (bootstrapExpect < 0) {
            throw new InvalidConfigException("Invalid bootstrap_expect: must be 0 or more");
        }
        if (!server && bootstrapExpect > 0 && !dev) {
            throw new InvalidConfigException("Bootstrap requires server mode to be enabled");
        }

        Path dataDir;
        String configuredDataDir = c.string("data_dir", "");
        if (!configuredDataDir.isBlank()) {
            dataDir = Paths.get(configuredDataDir).toAbsolutePath().normalize();
        } else if (dev) {
            dataDir = devDataDir;
        } else {
            throw new InvalidConfigException("Must specify \"data_dir\" config option or \"data-dir\" CLI flag");
        }
        String configuredPluginDir = c.string("plugin_dir", "");
        Path pluginDir = configuredPluginDir.isBlank()
                ? dataDir.resolve("plugins") : Paths.get(configuredPluginDir).toAbsolutePath().normalize();

        String level = c.string("log_level", "INFO").toUpperCase(Locale.ROOT);
        level = level.equals("ERR") ? "ERROR" : level;

        int httpPort = (int) c.integer("ports.http", 4646);
        int rpcPort = (int) c.integer("ports.rpc", 4647);
        int serfPort = (int) c.integer("ports.serf", 4648);

        String bind = address("bind_addr", c.string("bind_addr", "0.0.0.0"), nics);
        String httpAddr = address(c, "addresses.http", bind, nics);
        String rpcAddr = address(c, "addresses.rpc", bind, nics);
        String serfAddr = address(c, "addresses.serf", bind, nics);

        String advertiseHttp = advertise("http", rendered(c, "advertise.http", nics), httpAddr, httpPort, dev, nics);
        String advertiseRpc = advertise("rpc", rendered(c, "advertise.rpc", nics), rpcAddr, rpcPort, dev, nics);
        String advertiseSerf = advertise("serf", rendered(c, "advertise.serf", nics), serfAddr, serfPort, dev, nics);

        checkJobLimits(c);
        checkClientIntroduction(c);
        String encrypt = c.string("server.encrypt", "");
        if (!encrypt.isEmpty()) {
            checkGossipKey(encrypt);
        }
        // Every way Nomad names servers to join: retry_join (legacy and in server_join) and start_join, which is
        // tried like the others rather than once (a start that cannot join keeps retrying instead of failing).
        List<String> retryJoin = new ArrayList<>();
        for (String key : List.of("server.retry_join", "server.server_join.retry_join", "server.start_join",
                "server.server_join.start_join")) {
            c.list(key).stream().filter(a -> !retryJoin.contains(a)).forEach(retryJoin::add);
        }

        return new AgentSettings(c.string("region", "global"), c.string("datacenter", "dc1"),
                c.string("name", "").isBlank() ? hostName : c.string("name", ""), dataDir, pluginDir, dev, level,
                c.bool("log_json"), bind, httpPort, rpcPort, serfPort, httpAddr, rpcAddr, serfAddr, advertiseHttp, advertiseRpc,
                advertiseSerf, server, bootstrapExpect, encrypt, List.copyOf(retryJoin), client,
                c.list("client.servers"), c.bool("acl.enabled"), c.bool("leave_on_interrupt"),
                c.bool("leave_on_terminate"), c.bool("enable_debug"), Map.copyOf(c.map("http_api_response_headers")),
                c.string("ui.console.username", "admin"), c.string("ui.console.password", null),
                c.bool("ui.console.allow_remote"), List.copyOf(files), tls(c));
    }

    /** The {@code tls} block, paths made absolute (a reload may run from another directory), checked key by key. */
    private static TlsSettings tls(ConfigView c) throws InvalidConfigException {
        TlsSettings tls = new TlsSettings(c.bool("tls.http"), c.bool("tls.rpc"), file(c, "tls.ca_file"),
                file(c, "tls.cert_file"), file(c, "tls.key_file"), c.bool("tls.verify_server_hostname"),
                c.bool("tls.verify_https_client"), c.bool("tls.rpc_upgrade_mode"),
                c.string("tls.tls_min_version", "tls12"),
                TlsSettings.suites(c.string("tls.tls_cipher_suites", "")), c.string("region", "global"));
        try {
            tls.validate();
        } catch (TlsException e) {
            throw new InvalidConfigException(e.getMessage());
        }
        return tls;
    }

    private static Path file(ConfigView c, String key) {
        String v = c.string(key, "");
        return v.isBlank() ? null : Paths.get(v).toAbsolutePath().normalize();
    }

    /** Nomad's ranges for the server's job priority keys, and a job_max_count that bounds something. */
    private static void checkJobLimits(ConfigView c) throws InvalidConfigException {
        long maxPriority = c.integer("server.job_max_priority", 100);
        if (maxPriority < 100 || maxPriority > 32766) {
            throw new InvalidConfigException("job_max_priority cannot be " + maxPriority
                    + ". Must be between 100 and 32766");
        }
        long defaultPriority = c.integer("server.job_default_priority", 50);
        if (defaultPriority < 50 || defaultPriority > maxPriority) {
            throw new InvalidConfigException("job_default_priority cannot be " + defaultPriority
                    + ". Must be between 50 and " + maxPriority);
        }
        long maxCount = c.integer("server.job_max_count", 50_000);
        if (maxCount < 1 || maxCount > Integer.MAX_VALUE) {
            throw new InvalidConfigException("job_max_count cannot be " + maxCount + ". Must be between 1 and "
                    + Integer.MAX_VALUE);
        }
        long eventBuffer = c.integer("server.event_buffer_size", 100);
        if (eventBuffer < 0 || eventBuffer > Integer.MAX_VALUE) {
            throw new InvalidConfigException("event_buffer_size cannot be " + eventBuffer
                    + ". Must be between 0 and " + Integer.MAX_VALUE);
        }
    }

    /** Nomad's checks of {@code server.client_introduction}: TTLs above zero, the maximum not below the default. */
    private static void checkClientIntroduction(ConfigView c) throws InvalidConfigException {
        java.time.Duration defaultTtl = c.duration("server.client_introduction.default_identity_ttl",
                java.time.Duration.ofMinutes(5));
        java.time.Duration maxTtl = c.duration("server.client_introduction.max_identity_ttl",
                java.time.Duration.ofMinutes(30));
        if (defaultTtl.isNegative() || defaultTtl.isZero()) {
            throw new InvalidConfigException("server.client_introduction.default_identity_ttl must be greater than 0");
        }
        if (maxTtl.isNegative() || maxTtl.isZero()) {
            throw new InvalidConfigException("server.client_introduction.max_identity_ttl must be greater than 0");
        }
        if (maxTtl.compareTo(defaultTtl) < 0) {
            throw new InvalidConfigException("server.client_introduction.max_identity_ttl must be greater than or "
                    + "equal to default_identity_ttl");
        }
    }

    private static String address(ConfigView c, String key, String bind, Interfaces nics)
            throws InvalidConfigException {
        String value = c.string(key, null);
        return value == null ? bind : address(key, value, nics);
    }

    /** An IP address, written as one or as a go-sockaddr template ({@code {{ GetPrivateIP }}}). */
    private static String address(String key, String value, Interfaces nics) throws InvalidConfigException {
        String v = render(key, value, nics);
        if (!isIpLiteral(v)) {
            throw new InvalidConfigException("Invalid " + key + " \"" + v + "\": not an IP address");
        }
        return v;
    }

    private static String rendered(ConfigView c, String key, Interfaces nics) throws InvalidConfigException {
        String value = c.string(key, null);
        return value == null || value.isBlank() ? null : render(key, value, nics);
    }

    private static String render(String key, String value, Interfaces nics) throws InvalidConfigException {
        if (!value.contains("{{")) {
            return value.trim();
        }
        try {
            return SockaddrTemplate.renderSingle(value, nics);
        } catch (SockaddrException e) {
            throw new InvalidConfigException("Invalid " + key + ": " + e.getMessage());
        }
    }

    static boolean isIpLiteral(String v) {
        if (v.isEmpty() || !(v.contains(":") || v.chars().allMatch(ch -> ch == '.' || Character.isDigit(ch)))) {
            return false;
        }
        try {
            InetAddress.getByName(v); // a literal: no lookup happens
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Nomad's rule: an explicit advertise address wins (default port added); otherwise the bind address, unless
     * it is the wildcard, in which case the first private IPv4 address. Loopback is only allowed in dev mode.
     */
    static String advertise(String which, String configured, String bind, int port, boolean dev, Interfaces nics)
            throws InvalidConfigException {
        String host;
        if (configured != null && !configured.isBlank()) {
            HostPort hp = HostPort.parse(configured, port);
            return hp.toString();
        }
        if (bind.equals("0.0.0.0") || bind.equals("::")) {
            try {
                host = SockaddrTemplate.renderSingle("{{ GetPrivateIP }}", nics);
            } catch (SockaddrException e) {
                throw new InvalidConfigException("Failed to find a private IP address to advertise for " + which
                        + "; set advertise." + which);
            }
        } else {
            host = bind;
        }
        try {
            if (InetAddress.getByName(host).isLoopbackAddress() && !dev) {
                throw new InvalidConfigException("Defaulting advertise to localhost is unsafe, please set advertise."
                        + which + " manually");
            }
        } catch (IOException e) {
            throw new InvalidConfigException("Invalid advertise." + which + ": " + e.getMessage());
        }
        return new HostPort(host, port).toString();
    }

    /** Serf keys are base64 of 16, 24 or 32 bytes ({@code operator keygen} makes 32). */
    static void checkGossipKey(String key) throws InvalidConfigException {
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(key);
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigException("Invalid encryption key: not base64");
        }
        if (raw.length != 16 && raw.length != 24 && raw.length != 32) {
            throw new InvalidConfigException("Invalid encryption key: must be 16, 24 or 32 bytes, not " + raw.length);
        }
    }

    /** {@code host:port}, with IPv6 hosts in brackets. */
    record HostPort(String host, int port) {
        static HostPort parse(String text, int defaultPort) throws InvalidConfigException {
            String t = text.trim();
            int colon = t.lastIndexOf(':');
            boolean bracketed = t.startsWith("[");
            if (colon > 0 && (bracketed ? t.indexOf(']') < colon : t.indexOf(':') == colon)) {
                try {
                    return new HostPort(unbracket(t.substring(0, colon)), Integer.parseInt(t.substring(colon + 1)));
                } catch (NumberFormatException e) {
                    throw new InvalidConfigException("Invalid address \"" + text + "\": bad port");
                }
            }
            return new HostPort(unbracket(t), defaultPort);
        }

        /** The host of a {@code host:port} this agent built itself (so it is well-formed). */
        static String hostOf(String hostPort) {
            try {
                return parse(hostPort, 0).host();
            } catch (InvalidConfigException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        }

        private static String unbracket(String h) {
            return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
        }

        @Override
        public String toString() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /** True when the data dir is created per run and deleted on exit. */
    boolean ephemeralDataDir(Path devDataDir) {
        return devDataDir != null && dataDir.equals(devDataDir);
    }

    static Path createDevDataDir() throws IOException {
        return Files.createTempDirectory("caravan-dev-");
    }
}
