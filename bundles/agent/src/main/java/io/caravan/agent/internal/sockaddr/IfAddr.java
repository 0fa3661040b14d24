package io.caravan.agent.internal.sockaddr;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One IP address on one network interface: go-sockaddr's {@code IfAddr}, the element every template function works
 * on. Interface addresses carry no port, so the {@code port} attribute is always 0.
 *
 * @param name         interface name, e.g. {@code eth0}
 * @param address      the address (a scope id of a link-local IPv6 address plays no part)
 * @param prefixLength network prefix length, 0–32 for IPv4 and 0–128 for IPv6
 * @param flags        the interface's flags
 */
public record IfAddr(String name, InetAddress address, int prefixLength, Set<IfFlag> flags) {

    public IfAddr {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(address, "address");
        if (prefixLength < 0 || prefixLength > Ip.bits(address)) {
            throw new IllegalArgumentException("prefix length " + prefixLength + " out of range for " + address);
        }
        flags = flags.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(flags));
    }

    /** For tests and fakes: {@code IfAddr.parse("eth0", "10.0.0.5/24", IfFlag.UP)}; no prefix means a host. */
    public static IfAddr parse(String name, String cidr, IfFlag... flags) {
        int slash = cidr.indexOf('/');
        InetAddress address = Ip.parse(slash < 0 ? cidr : cidr.substring(0, slash));
        int prefix = slash < 0 ? Ip.bits(address) : Integer.parseInt(cidr.substring(slash + 1));
        return new IfAddr(name, address, prefix, Set.of(flags));
    }

    public boolean isIPv4() {
        return address instanceof Inet4Address;
    }

    /** {@code IPv4} or {@code IPv6}, as go-sockaddr names the type. */
    public String type() {
        return isIPv4() ? "IPv4" : "IPv6";
    }

    /** The address in Go's text form, e.g. {@code fe80::1}. */
    public String addressText() {
        return Ip.format(address);
    }

    /** go-sockaddr's string form: {@code 10.0.0.5/24}, or just the address for a /32 or /128. */
    public String sockaddrString() {
        return prefixLength == Ip.bits(address) ? addressText() : addressText() + "/" + prefixLength;
    }

    /** The flags as Go prints them: {@code up|broadcast|multicast}, or {@code 0} when there are none. */
    public String flagsText() {
        List<String> names = flags.isEmpty() ? List.of("0")
                : EnumSet.copyOf(flags).stream().map(IfFlag::goName).toList();
        return String.join("|", names);
    }

    Cidr network() {
        return Cidr.of(address, prefixLength);
    }

    IfAddr withAddress(InetAddress newAddress, int newPrefix) {
        return new IfAddr(name, newAddress, newPrefix, flags);
    }

    @Override
    public String toString() {
        return name + " " + sockaddrString() + " " + flagsText();
    }
}
