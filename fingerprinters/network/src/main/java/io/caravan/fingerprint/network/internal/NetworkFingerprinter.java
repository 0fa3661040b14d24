package io.caravan.fingerprint.network.internal;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.osgi.service.component.annotations.Component;

import io.caravan.plugin.api.fingerprint.FingerprintResult;
import io.caravan.plugin.api.fingerprint.Fingerprinter;
import io.caravan.plugin.api.fingerprint.FingerprintName;
import io.caravan.plugin.api.fingerprint.HostFacts;

/**
 * Nomad's {@code network} fingerprint, as far as attributes go: {@code unique.network.ip-address}, the first
 * address of the {@code network_interface} option's interface, or of the interface the default route leaves by.
 * Link-local addresses count only when there is nothing else (and not at all with
 * {@code fingerprint.network.disallow_link_local}); {@code preferred_address_family} puts ipv4 or ipv6 first.
 * Nomad sets no other attribute: the device, its speed and CIDRs go into the node's network resources, which this
 * SPI does not carry.
 */
@Component(service = Fingerprinter.class,
        property = "caravan.fingerprint.phase=host")
@FingerprintName("network")
public final class NetworkFingerprinter implements Fingerprinter {
    static final String INTERFACE_OPTION = "network_interface";
    static final String ADDRESS_FAMILY_OPTION = "preferred_address_family";
    static final String DISALLOW_LINK_LOCAL_OPTION = "fingerprint.network.disallow_link_local";

    private static final int RTF_UP = 0x1;
    private static final int RTF_REJECT = 0x200;

    /** The addresses of an interface by name; empty when there is no such interface. */
    @FunctionalInterface
    interface InterfaceAddresses {
        Optional<List<InetAddress>> of(String name) throws IOException;
    }

    private final Path root;
    private final InterfaceAddresses interfaceAddresses;

    public NetworkFingerprinter() {
        this(Path.of("/"), NetworkFingerprinter::jdkAddresses);
    }

    /** @param root where {@code proc/net/route} and {@code proc/net/ipv6_route} are looked up */
    NetworkFingerprinter(Path root, InterfaceAddresses interfaceAddresses) {
        this.root = root;
        this.interfaceAddresses = interfaceAddresses;
    }

    @Override
    public FingerprintResult fingerprint(HostFacts soFar) throws IOException {
        Map<String, String> options = soFar.options();
        String name = options.getOrDefault(INTERFACE_OPTION, "");
        if (name.isBlank()) {
            name = defaultRouteInterface().orElseThrow(() -> new IOException(
                    "no network_interface given and failed to determine interface attached to default route"));
        }
        final String device = name;
        List<InetAddress> addresses = interfaceAddresses.of(device).orElseThrow(() -> new IOException(
                "Error while detecting network interface " + device + " during fingerprinting: no such interface"));
        boolean disallowLinkLocal = Boolean.parseBoolean(options.getOrDefault(DISALLOW_LINK_LOCAL_OPTION, "false"));
        return pick(addresses, options.getOrDefault(ADDRESS_FAMILY_OPTION, ""), disallowLinkLocal)
                .map(ip -> FingerprintResult.attributes(Map.of("unique.network.ip-address", format(ip))))
                .orElseGet(() -> FingerprintResult.attributes(Map.of()));
    }

    /**
     * The IPv4 default route with the lowest metric ({@code /proc/net/route}: destination and mask 0, route up),
     * else the IPv6 one ({@code /proc/net/ipv6_route}: ::/0, up, not the loopback's reject route).
     */
    Optional<String> defaultRouteInterface() throws IOException {
        String best = null;
        long bestMetric = Long.MAX_VALUE;
        for (String line : lines("proc/net/route")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 8 || f[0].equals("Iface")) {
                continue;
            }
            int flags = Integer.parseInt(f[3], 16);
            long metric = Long.parseLong(f[6]);
            if (f[1].equals("00000000") && f[7].equals("00000000") && (flags & RTF_UP) != 0 && metric < bestMetric) {
                best = f[0];
                bestMetric = metric;
            }
        }
        if (best != null) {
            return Optional.of(best);
        }
        for (String line : lines("proc/net/ipv6_route")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 10) {
                continue;
            }
            long flags = Long.parseLong(f[8], 16);
            long metric = Long.parseLong(f[5], 16);
            boolean anyDestination = f[0].chars().allMatch(c -> c == '0') && f[1].equals("00");
            if (anyDestination && (flags & RTF_UP) != 0 && (flags & RTF_REJECT) == 0 && !f[9].equals("lo")
                    && metric < bestMetric) {
                best = f[9];
                bestMetric = metric;
            }
        }
        return Optional.ofNullable(best);
    }

    /** Nomad's choice: routable before link-local; IPv4 before IPv6 (the kernel's order) unless told otherwise. */
    static Optional<InetAddress> pick(List<InetAddress> addresses, String preferredFamily, boolean disallowLinkLocal) {
        List<InetAddress> sorted = new ArrayList<>(addresses);
        Comparator<InetAddress> v4First = Comparator.comparing(a -> a instanceof Inet6Address);
        sorted.sort(preferredFamily.equals("ipv6") ? v4First.reversed() : v4First);
        Optional<InetAddress> routable = sorted.stream().filter(a -> !a.isLinkLocalAddress()).findFirst();
        if (routable.isPresent() || disallowLinkLocal) {
            return routable;
        }
        return sorted.stream().findFirst();
    }

    /** As Go prints addresses: dotted IPv4; IPv6 in RFC 5952 short form without a zone ({@code fd00::2}). */
    static String format(InetAddress address) {
        if (address instanceof Inet4Address) {
            return address.getHostAddress();
        }
        byte[] b = address.getAddress();
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        }
        // the longest run of two or more zero groups (the first of equals) becomes "::"
        int runStart = -1;
        int runLength = 0;
        for (int i = 0; i < 8; i++) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > runLength && j - i >= 2) {
                runStart = i;
                runLength = j - i;
            }
            i = Math.max(i, j);
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == runStart) {
                out.append("::");
                i += runLength - 1;
                continue;
            }
            if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(groups[i]));
        }
        return out.toString();
    }

    private List<String> lines(String file) throws IOException {
        Path path = root.resolve(file);
        return Files.isReadable(path) ? Files.readAllLines(path) : List.of();
    }

    private static Optional<List<InetAddress>> jdkAddresses(String name) throws SocketException {
        NetworkInterface nic = NetworkInterface.getByName(name);
        return nic == null ? Optional.empty() : Optional.of(Collections.list(nic.getInetAddresses()));
    }
}
