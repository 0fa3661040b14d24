package io.caravan.agent.internal;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The resolved agent: every layer merged (defaults → {@code -dev} defaults → config files → flags), defaults
 * filled, validated and checked for conflicts. Pure apart from reading network interfaces and the host name.
 */
record AgentSettings(
        String region, String datacenter, String name, Path dataDir, Path pluginDir, boolean devMode,
        String logLevel, String bindAddr,
        int httpPort, int rpcPort, int serfPort,
        String httpAddr, String rpcAddr, String serfAddr,
        String advertiseHttp, String advertiseRpc, String advertiseSerf,
        boolean server, int bootstrapExpect, String encrypt, List<String> retryJoin,
        boolean client, List<String> servers,
        boolean aclEnabled, boolean leaveOnInterrupt, boolean leaveOnTerminate, boolean enableDebug,
        Map<String, String> responseHeaders,
        String consoleUser, String consolePassword, boolean consoleAllowRemote,
        List<Path> files) {

    static final Set<String> LOG_LEVELS = Set.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF");

    static final class InvalidConfigException extends Exception {
        private static final long serialVersionUID = 1L;

        InvalidConfigException(String message) {
            super(message);
        }
    }

    static AgentConfig defaults() {
        return AgentConfig.of(b -> {
            b.region = "global";
            b.datacenter = "dc1";
            b.bindAddr = "0.0.0.0";
            b.logLevel = "INFO";
            b.ports = new AgentConfig.Ports(4646, 4647, 4648);
            b.server = new AgentConfig.Server(false, 0, null, null, null);
            b.client = new AgentConfig.Client(false, null);
            b.acl = new AgentConfig.Acl(false);
            b.leaveOnInterrupt = false;
            b.leaveOnTerminate = false;
            b.enableDebug = false;
        });
    }

    /** Nomad's {@code -dev}: server and client in one process on loopback, debug logging, one-server Raft. */
    static AgentConfig devDefaults() {
        return AgentConfig.of(b -> {
            b.bindAddr = "127.0.0.1";
            b.logLevel = "DEBUG";
            b.enableDebug = true;
            b.devMode = true;
            b.server = new AgentConfig.Server(true, 1, null, null, null);
            b.client = new AgentConfig.Client(true, null);
            b.ui = new AgentConfig.Ui(true, new AgentConfig.Console("admin", "admin", false));
        });
    }

    /**
     * @param devDataDir created by the caller for {@code -dev} when no data dir is configured
     * @param hostName the default node name
     */
    static AgentSettings resolve(AgentConfig merged, List<Path> files, Path devDataDir, String hostName)
            throws InvalidConfigException {
        AgentConfig c = merged;
        boolean dev = Boolean.TRUE.equals(c.devMode());
        boolean server = Boolean.TRUE.equals(c.server().enabled());
        boolean client = Boolean.TRUE.equals(c.client().enabled());
        if (!server && !client) {
            throw new InvalidConfigException("Must specify either server, client or dev mode for the agent.");
        }
        int bootstrapExpect = c.server().bootstrapExpect() == null ? 0 : c.server().bootstrapExpect();
        if (bootstrapExpect < 0) {
            throw new InvalidConfigException("Invalid bootstrap_expect: must be 0 or more");
        }
        if (!server && bootstrapExpect > 0 && !dev) {
            throw new InvalidConfigException("Bootstrap requires server mode to be enabled");
        }

        Path dataDir;
        if (c.dataDir() != null && !c.dataDir().isBlank()) {
            dataDir = Paths.get(c.dataDir()).toAbsolutePath().normalize();
        } else if (dev) {
            dataDir = devDataDir;
        } else {
            throw new InvalidConfigException("Must specify \"data_dir\" config option or \"data-dir\" CLI flag");
        }
        Path pluginDir = c.pluginDir() == null || c.pluginDir().isBlank()
                ? dataDir.resolve("plugins") : Paths.get(c.pluginDir()).toAbsolutePath().normalize();

        String level = c.logLevel().toUpperCase(Locale.ROOT);
        if (!LOG_LEVELS.contains(level)) {
            throw new InvalidConfigException("Invalid log level: " + c.logLevel()
                    + ". Valid log levels are: [TRACE DEBUG INFO WARN ERROR OFF]");
        }

        AgentConfig.Ports ports = c.ports();
        int httpPort = port("ports.http", ports.http());
        int rpcPort = port("ports.rpc", ports.rpc());
        int serfPort = port("ports.serf", ports.serf());

        String bind = literalAddress("bind_addr", c.bindAddr());
        AgentConfig.Addresses addrs = c.addresses() == null ? new AgentConfig.Addresses(null, null, null) : c.addresses();
        String httpAddr = addrs.http() == null ? bind : literalAddress("addresses.http", addrs.http());
        String rpcAddr = addrs.rpc() == null ? bind : literalAddress("addresses.rpc", addrs.rpc());
        String serfAddr = addrs.serf() == null ? bind : literalAddress("addresses.serf", addrs.serf());

        AgentConfig.Addresses adv = c.advertise() == null ? new AgentConfig.Addresses(null, null, null) : c.advertise();
        String advertiseHttp = advertise("http", adv.http(), httpAddr, httpPort, dev);
        String advertiseRpc = advertise("rpc", adv.rpc(), rpcAddr, rpcPort, dev);
        String advertiseSerf = advertise("serf", adv.serf(), serfAddr, serfPort, dev);

        String encrypt = c.server().encrypt();
        if (encrypt != null && !encrypt.isEmpty()) {
            checkGossipKey(encrypt);
        }

        AgentConfig.Console console = c.ui() == null || c.ui().console() == null
                ? new AgentConfig.Console(null, null, null) : c.ui().console();
        String user = console.username() == null ? "admin" : console.username();

        return new AgentSettings(c.region(), c.datacenter(),
                c.name() == null || c.name().isBlank() ? hostName : c.name(), dataDir, pluginDir, dev, level, bind,
                httpPort, rpcPort, serfPort, httpAddr, rpcAddr, serfAddr, advertiseHttp, advertiseRpc, advertiseSerf,
                server, bootstrapExpect, encrypt == null ? "" : encrypt,
                listOrEmpty(c.server().allRetryJoin()), client, listOrEmpty(c.client().servers()),
                Boolean.TRUE.equals(c.acl().enabled()), Boolean.TRUE.equals(c.leaveOnInterrupt()),
                Boolean.TRUE.equals(c.leaveOnTerminate()), Boolean.TRUE.equals(c.enableDebug()),
                c.httpApiResponseHeaders() == null ? Map.of() : Map.copyOf(c.httpApiResponseHeaders()),
                user, console.password(), Boolean.TRUE.equals(console.allowRemote()), List.copyOf(files));
    }

    private static List<String> listOrEmpty(List<String> list) {
        return list == null ? List.of() : List.copyOf(list);
    }

    private static int port(String key, Integer value) throws InvalidConfigException {
        if (value == null || value < 1 || value > 65535) {
            throw new InvalidConfigException("Invalid " + key + ": " + value + " is not a port (1-65535)");
        }
        return value;
    }

    /** go-sockaddr templates come with the configuration issue; until then an address must be a literal IP. */
    private static String literalAddress(String key, String value) throws InvalidConfigException {
        String v = value.trim();
        if (v.contains("{{")) {
            throw new InvalidConfigException("Invalid " + key + " \"" + v
                    + "\": go-sockaddr templates are not supported yet; give an IP address");
        }
        if (!isIpLiteral(v)) {
            throw new InvalidConfigException("Invalid " + key + " \"" + v + "\": not an IP address");
        }
        return v;
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
    static String advertise(String which, String configured, String bind, int port, boolean dev)
            throws InvalidConfigException {
        String host;
        if (configured != null && !configured.isBlank()) {
            HostPort hp = HostPort.parse(configured, port);
            return hp.toString();
        }
        if (bind.equals("0.0.0.0") || bind.equals("::")) {
            host = privateAddress().orElseThrow(() -> new InvalidConfigException(
                    "Failed to find a private IP address to advertise for " + which + "; set advertise." + which));
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

    private static java.util.Optional<String> privateAddress() {
        List<String> candidates = new ArrayList<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp() || nic.isLoopback()) {
                    continue;
                }
                for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                    if (a instanceof Inet4Address && a.isSiteLocalAddress()) {
                        candidates.add(a.getHostAddress());
                    }
                }
            }
        } catch (SocketException e) {
            return java.util.Optional.empty();
        }
        return candidates.stream().sorted().findFirst();
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
