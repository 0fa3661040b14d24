package io.caravan.agent.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Nomad's {@code HostData} for {@code GET /v1/agent/host}: what an operator debugging an agent wants to know about
 * its host. Environment values whose name says token or secret, or that Nomad's env deny list names, are
 * {@code <redacted>} as in Nomad.
 */
record HostData(@JsonProperty("OS") String os, List<Map<String, String>> network, String resolvConf, String hosts,
                Map<String, String> environment, Map<String, DiskUsage> disk) {

    /** Nomad's redact set: the default {@code env.denylist} of a client. */
    static final Set<String> REDACT = Set.of("CONSUL_TOKEN", "CONSUL_HTTP_TOKEN", "VAULT_TOKEN", "NOMAD_LICENSE",
            "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GOOGLE_APPLICATION_CREDENTIALS");
    static final String REDACTED = "<redacted>";

    record DiskUsage(long diskMB, long usedMB) {}

    /** Nomad's {@code HostDataResponse}. */
    record Response(String agentID, HostData hostData) {}

    static HostData collect(Map<String, String> env, List<Path> paths) {
        Map<String, DiskUsage> disk = new LinkedHashMap<>();
        for (Path p : paths) {
            try {
                FileStore store = Files.getFileStore(p);
                long total = store.getTotalSpace();
                disk.put(p.toString(), new DiskUsage(total / (1 << 20),
                        (total - store.getUsableSpace()) / (1 << 20)));
            } catch (IOException | RuntimeException e) {
                // A path that is not there (yet) has no usage to report; Nomad skips it too.
            }
        }
        return new HostData(uname(), interfaces(), read("/etc/resolv.conf"), read("/etc/hosts"), redact(env), disk);
    }

    static Map<String, String> redact(Map<String, String> env) {
        Map<String, String> out = new TreeMap<>();
        env.forEach((k, v) -> {
            String up = k.toUpperCase(Locale.ROOT);
            out.put(k, REDACT.contains(k) || up.contains("TOKEN") || up.contains("SECRET") ? REDACTED : v);
        });
        return out;
    }

    /** As {@code uname -a} prints it, from what the JVM and {@code /proc} tell. */
    private static String uname() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "";
        }
        String kernelVersion = read("/proc/sys/kernel/version").strip();
        return String.join(" ", System.getProperty("os.name"), host, System.getProperty("os.version"),
                kernelVersion, System.getProperty("os.arch")).replaceAll(" +", " ").strip();
    }

    /** One entry per interface address: its interface name and CIDR, as Nomad lists them. */
    private static List<Map<String, String>> interfaces() {
        List<Map<String, String>> out = new ArrayList<>();
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InterfaceAddress a : nic.getInterfaceAddresses()) {
                    String address = a.getAddress().getHostAddress().replaceFirst("%.*$", "");
                    Map<String, String> entry = new LinkedHashMap<>();
                    entry.put("interface", nic.getName());
                    entry.put("cidr", address + "/" + a.getNetworkPrefixLength());
                    out.add(entry);
                }
            }
        } catch (SocketException e) {
            // No interfaces to list.
        }
        return out;
    }

    private static String read(String file) {
        try {
            return Files.readString(Path.of(file));
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
