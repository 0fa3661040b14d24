package io.caravan.agent.internal.sockaddr;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * This machine's interfaces, read through {@link NetworkInterface}. On Linux the flags come from
 * {@code /sys/class/net/<name>/flags} (Java's {@code isUp()} also demands RUNNING, Go's "up" does not) and the
 * default route from {@code /proc/net/route} (then {@code /proc/net/ipv6_route}); elsewhere the default interface is
 * the one the OS picks to reach an outside address.
 */
public final class SystemInterfaces implements Interfaces {
    private static final int IFF_UP = 0x1;
    private static final int IFF_BROADCAST = 0x2;
    private static final int IFF_LOOPBACK = 0x8;
    private static final int IFF_POINTOPOINT = 0x10;
    private static final int IFF_MULTICAST = 0x1000;
    private static final int RTF_UP = 0x1;
    private static final int RTF_REJECT = 0x200;

    @Override
    public List<IfAddr> addresses() throws SockaddrException {
        List<NetworkInterface> nics;
        try {
            var all = NetworkInterface.getNetworkInterfaces();
            nics = all == null ? new ArrayList<>() : Collections.list(all);
        } catch (SocketException e) {
            throw new SockaddrException("unable to list network interfaces: " + e.getMessage(), e);
        }
        nics.sort(Comparator.comparingInt(NetworkInterface::getIndex)); // Go lists interfaces by index
        List<IfAddr> out = new ArrayList<>();
        for (NetworkInterface nic : nics) {
            Set<IfFlag> flags = flags(nic);
            List<IfAddr> own = new ArrayList<>();
            for (InterfaceAddress ia : nic.getInterfaceAddresses()) {
                InetAddress a = ia.getAddress();
                int bits = Ip.bits(a);
                int prefix = ia.getNetworkPrefixLength();
                // Stripping the scope id: templates print link-local addresses without %eth0, like Go.
                own.add(new IfAddr(nic.getName(), Ip.of(a.getAddress()), prefix < 0 || prefix > bits ? bits : prefix,
                        flags));
            }
            own.sort(Comparator.comparing(IfAddr::isIPv4).reversed()); // IPv4 first, as Go's netlink order gives
            out.addAll(own);
        }
        return out;
    }

    private static Set<IfFlag> flags(NetworkInterface nic) {
        Set<IfFlag> flags = EnumSet.noneOf(IfFlag.class);
        Optional<Integer> raw = sysfsFlags(nic.getName());
        if (raw.isPresent()) {
            int f = raw.get();
            addIf(flags, (f & IFF_UP) != 0, IfFlag.UP);
            addIf(flags, (f & IFF_BROADCAST) != 0, IfFlag.BROADCAST);
            addIf(flags, (f & IFF_LOOPBACK) != 0, IfFlag.LOOPBACK);
            addIf(flags, (f & IFF_POINTOPOINT) != 0, IfFlag.POINT_TO_POINT);
            addIf(flags, (f & IFF_MULTICAST) != 0, IfFlag.MULTICAST);
            // sysfs leaves RUNNING out; the kernel reports it for an up interface whose operstate is up or unknown
            addIf(flags, (f & IFF_UP) != 0 && sysfs(nic.getName(), "operstate").filter(
                    state -> state.equals("up") || state.equals("unknown")).isPresent(), IfFlag.RUNNING);
            return flags;
        }
        try {
            boolean up = nic.isUp(); // up and running
            addIf(flags, up, IfFlag.UP);
            addIf(flags, up, IfFlag.RUNNING);
            addIf(flags, nic.getInterfaceAddresses().stream().anyMatch(ia -> ia.getBroadcast() != null),
                    IfFlag.BROADCAST);
            addIf(flags, nic.isLoopback(), IfFlag.LOOPBACK);
            addIf(flags, nic.isPointToPoint(), IfFlag.POINT_TO_POINT);
            addIf(flags, nic.supportsMulticast(), IfFlag.MULTICAST);
        } catch (SocketException e) {
            // the interface vanished while we looked; report it without flags
        }
        return flags;
    }

    private static void addIf(Set<IfFlag> flags, boolean condition, IfFlag flag) {
        if (condition) {
            flags.add(flag);
        }
    }

    private static Optional<Integer> sysfsFlags(String name) {
        try {
            return sysfs(name, "flags").map(Integer::decode);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** A file of {@code /sys/class/net/<name>/}, trimmed, when this is Linux and it can be read. */
    private static Optional<String> sysfs(String name, String file) {
        if (name.contains("/") || name.startsWith(".")) {
            return Optional.empty();
        }
        try {
            return Optional.of(Files.readString(Path.of("/sys/class/net", name, file)).trim());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    @Override
    public Optional<String> defaultInterface() {
        return readLines(Path.of("/proc/net/route")).flatMap(SystemInterfaces::defaultRouteIPv4)
                .or(() -> readLines(Path.of("/proc/net/ipv6_route")).flatMap(SystemInterfaces::defaultRouteIPv6))
                .or(SystemInterfaces::probeDefaultInterface);
    }

    private static Optional<List<String>> readLines(Path path) {
        try {
            return Optional.of(Files.readAllLines(path));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The interface of the lowest-metric usable default route in {@code /proc/net/route} (columns: Iface Destination
     * Gateway Flags RefCnt Use Metric Mask ..., addresses in hex).
     */
    static Optional<String> defaultRouteIPv4(List<String> lines) {
        String best = null;
        long bestMetric = Long.MAX_VALUE;
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 8 || !f[1].equals("00000000") || !f[7].equals("00000000")) {
                continue;
            }
            try {
                long metric = Long.parseLong(f[6]);
                if ((Integer.parseInt(f[3], 16) & RTF_UP) != 0 && metric < bestMetric) {
                    best = f[0];
                    bestMetric = metric;
                }
            } catch (NumberFormatException e) {
                // not a route line
            }
        }
        return Optional.ofNullable(best);
    }

    /**
     * The same for {@code /proc/net/ipv6_route} (columns: destination, prefix length, source, source prefix length,
     * next hop, metric, refcount, use, flags, device, all hex), skipping the kernel's "unreachable" defaults on lo.
     */
    static Optional<String> defaultRouteIPv6(List<String> lines) {
        String best = null;
        long bestMetric = Long.MAX_VALUE;
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 10 || !f[0].matches("0{32}") || !f[1].equals("00") || f[9].equals("lo")) {
                continue;
            }
            try {
                long metric = Long.parseLong(f[5], 16);
                int flags = Integer.parseInt(f[8], 16);
                if ((flags & RTF_UP) != 0 && (flags & RTF_REJECT) == 0 && metric < bestMetric) {
                    best = f[9];
                    bestMetric = metric;
                }
            } catch (NumberFormatException e) {
                // not a route line
            }
        }
        return Optional.ofNullable(best);
    }

    /**
     * Without a route table to read, ask the OS which local address it would use to reach a documentation address:
     * connecting a UDP socket only consults the routing table and sends nothing.
     */
    private static Optional<String> probeDefaultInterface() {
        for (String target : List.of("192.0.2.1", "2001:db8::1")) {
            try (DatagramSocket probe = new DatagramSocket()) {
                probe.connect(Ip.parse(target), 9);
                InetAddress local = probe.getLocalAddress();
                if (local == null || local.isAnyLocalAddress() || local.isLoopbackAddress()) {
                    continue;
                }
                NetworkInterface nic = NetworkInterface.getByInetAddress(local);
                if (nic != null) {
                    return Optional.of(nic.getName());
                }
            } catch (IOException | RuntimeException e) {
                // no route for this family
            }
        }
        return Optional.empty();
    }
}
