package io.caravan.agent.internal.sockaddr;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The special-purpose address blocks the {@code rfc} selector knows, by RFC number, and go-sockaddr's two derived
 * notions: "private" means inside RFC 6890's registry (RFC 1918, RFC 6598, ULA fc00::/7, ...), and "forwardable"
 * means outside the blocks a router must not forward (loopback, link-local, documentation nets, ...).
 */
final class SpecialRanges {
    static final int PRIVATE_RFC = 6890;

    private static final Map<Integer, List<Cidr>> BY_RFC = new TreeMap<>(Map.ofEntries(
            Map.entry(919, cidrs("255.255.255.255/32")),
            Map.entry(1112, cidrs("224.0.0.0/4")),
            Map.entry(1122, cidrs("0.0.0.0/8", "127.0.0.0/8")),
            Map.entry(1918, cidrs("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")),
            Map.entry(2544, cidrs("198.18.0.0/15")),
            Map.entry(2765, cidrs("::ffff:0:0/96")),
            Map.entry(2928, cidrs("2001::/16")),
            Map.entry(3056, cidrs("2002::/16")),
            Map.entry(3068, cidrs("192.88.99.0/24", "2002:c058:6301::/48")),
            Map.entry(3171, cidrs("224.0.0.0/4")),
            Map.entry(3330, cidrs("0.0.0.0/8", "10.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
                    "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4",
                    "240.0.0.0/4")),
            Map.entry(3849, cidrs("2001:db8::/32")),
            Map.entry(3927, cidrs("169.254.0.0/16")),
            Map.entry(4038, cidrs("::ffff:0:0/96")),
            Map.entry(4193, cidrs("fc00::/7")),
            Map.entry(4291, cidrs("::/128", "::1/128", "::/96", "::ffff:0:0/96", "fe80::/10", "fec0::/10",
                    "ff00::/8")),
            Map.entry(4380, cidrs("2001::/32")),
            Map.entry(4773, cidrs("2001::/23")),
            Map.entry(4843, cidrs("2001:10::/28")),
            Map.entry(5180, cidrs("2001:2::/48")),
            Map.entry(5735, cidrs("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "198.18.0.0/15")),
            Map.entry(5737, cidrs("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")),
            Map.entry(6052, cidrs("64:ff9b::/96")),
            Map.entry(6333, cidrs("192.0.0.0/29")),
            Map.entry(6598, cidrs("100.64.0.0/10")),
            Map.entry(6666, cidrs("100::/64")),
            // The IANA special-purpose registries as RFC 6890 lists them.
            Map.entry(PRIVATE_RFC, cidrs("0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8",
                    "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.0.0/29", "192.0.2.0/24",
                    "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
                    "240.0.0.0/4", "255.255.255.255/32", "::1/128", "::/128", "64:ff9b::/96", "::ffff:0:0/96",
                    "100::/64", "2001::/23", "2001:db8::/32", "2002::/16", "fc00::/7", "fe80::/10")),
            Map.entry(7335, cidrs("192.0.0.0/29"))));

    /** RFC 6890's blocks marked "Forwardable: False", plus the documentation nets. */
    private static final List<Cidr> NOT_FORWARDABLE = cidrs("0.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16",
            "192.0.0.0/24", "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4",
            "255.255.255.255/32", "::1/128", "::/128", "::ffff:0:0/96", "2001:db8::/32", "2001:10::/28",
            "fe80::/10");

    private SpecialRanges() {
    }

    private static List<Cidr> cidrs(String... blocks) {
        return Arrays.stream(blocks).map(Cidr::parse).toList();
    }

    static Optional<List<Cidr>> rfc(int number) {
        return Optional.ofNullable(BY_RFC.get(number));
    }

    static String knownRfcs() {
        return BY_RFC.keySet().toString();
    }

    static boolean in(List<Cidr> blocks, IfAddr a) {
        Cidr network = a.network();
        return blocks.stream().anyMatch(b -> b.contains(network));
    }

    static boolean isPrivate(IfAddr a) {
        return in(BY_RFC.get(PRIVATE_RFC), a);
    }

    static boolean isForwardable(IfAddr a) {
        return !in(NOT_FORWARDABLE, a);
    }
}
