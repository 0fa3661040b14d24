package io.caravan.agent.internal.sockaddr;

import io.caravan.agent.internal.sockaddr.Functions.Failure;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** The selectors of {@code include}/{@code exclude} and the keys of {@code sort}. */
final class Filters {
    private Filters() {
    }

    /**
     * The addresses {@code include selector value} keeps ({@code exclude} keeps the rest). Values holding several
     * alternatives separate them with {@code |}, e.g. {@code include "type" "ipv4|ipv6"}; regexps match anywhere.
     */
    static Predicate<IfAddr> selector(String selector, String value) throws Failure {
        switch (selector.toLowerCase(Locale.ROOT)) {
            case "address": {
                Pattern re = regexp(value);
                return a -> re.matcher(a.sockaddrString()).find();
            }
            case "name": {
                Pattern re = regexp(value);
                return a -> re.matcher(a.name()).find();
            }
            case "port": {
                Pattern re = regexp(value);
                return a -> re.matcher("0").find(); // interface addresses have no port
            }
            case "flag":
            case "flags":
                return flags(value);
            case "network": {
                List<Cidr> networks = new ArrayList<>();
                for (String n : value.split("\\|")) {
                    try {
                        networks.add(Cidr.parse(n));
                    } catch (IllegalArgumentException e) {
                        throw new Failure("invalid CIDR " + Functions.quote(n) + ": " + e.getMessage());
                    }
                }
                return a -> SpecialRanges.in(networks, a);
            }
            case "rfc":
            case "rfcs": {
                List<Cidr> blocks = new ArrayList<>();
                for (String r : value.split("\\|")) {
                    blocks.addAll(rfc(r.trim()));
                }
                return a -> SpecialRanges.in(blocks, a);
            }
            case "size": {
                int size = -1;
                if (value.trim().matches("\\d{1,3}")) {
                    size = Integer.parseInt(value.trim());
                }
                if (size < 0 || size > 128) {
                    throw new Failure("size must be a prefix length from 0 to 128, not " + Functions.quote(value));
                }
                int wanted = size;
                return a -> a.prefixLength() == wanted;
            }
            case "type": {
                Set<String> types = Set.of(value.toLowerCase(Locale.ROOT).split("\\|"));
                for (String t : types) {
                    if (!Set.of("ip", "ipv4", "ipv6", "unix").contains(t)) {
                        throw new Failure("unknown type " + Functions.quote(t) + " (want ip, ipv4, ipv6 or unix)");
                    }
                }
                // there are no unix sockets among interface addresses
                return a -> types.contains("ip") || types.contains(a.type().toLowerCase(Locale.ROOT));
            }
            default:
                throw new Failure("unknown selector " + Functions.quote(selector)
                        + " (want address, flag, name, network, port, rfc, size or type)");
        }
    }

    private static Pattern regexp(String value) throws Failure {
        try {
            return Pattern.compile(value);
        } catch (PatternSyntaxException e) {
            throw new Failure("invalid regexp " + Functions.quote(value) + ": " + e.getDescription());
        }
    }

    private static List<Cidr> rfc(String number) throws Failure {
        if (!number.matches("\\d{1,9}")) {
            throw new Failure(Functions.quote(number) + " is not an RFC number");
        }
        return SpecialRanges.rfc(Integer.parseInt(number)).orElseThrow(() -> new Failure(
                "unsupported RFC " + number + " (known: " + SpecialRanges.knownRfcs() + ")"));
    }

    /**
     * go-sockaddr's flag test: the interface must carry every interface flag named (up, broadcast, loopback,
     * multicast, point-to-point), or the address must have any of the address properties named (forwardable, global
     * unicast, loopback, multicast, ...). "loopback" and "multicast" count both ways. "down" means not up.
     */
    private static Predicate<IfAddr> flags(String value) throws Failure {
        Set<IfFlag> required = EnumSet.noneOf(IfFlag.class);
        boolean down = false;
        List<Predicate<IfAddr>> properties = new ArrayList<>();
        for (String raw : value.toLowerCase(Locale.ROOT).split("\\|")) {
            String flag = raw.trim();
            switch (flag) {
                case "up" -> required.add(IfFlag.UP);
                case "down" -> down = true;
                case "broadcast" -> required.add(IfFlag.BROADCAST);
                case "point-to-point" -> required.add(IfFlag.POINT_TO_POINT);
                case "loopback" -> {
                    required.add(IfFlag.LOOPBACK);
                    properties.add(a -> a.address().isLoopbackAddress());
                }
                case "multicast" -> {
                    required.add(IfFlag.MULTICAST);
                    properties.add(a -> a.address().isMulticastAddress());
                }
                case "forwardable" -> properties.add(SpecialRanges::isForwardable);
                case "global unicast" -> properties.add(a -> Ip.isGlobalUnicast(a.address()));
                case "link-local unicast" -> properties.add(a -> a.address().isLinkLocalAddress());
                case "link-local multicast" -> properties.add(a -> a.address().isMCLinkLocal());
                case "interface-local multicast" -> properties.add(a -> a.address().isMCNodeLocal());
                case "unspecified" -> properties.add(a -> a.address().isAnyLocalAddress());
                default -> throw new Failure("unknown flag " + Functions.quote(flag) + " (want broadcast, down,"
                        + " forwardable, global unicast, interface-local multicast, link-local multicast,"
                        + " link-local unicast, loopback, multicast, point-to-point, unspecified or up)");
            }
        }
        boolean checkInterface = !required.isEmpty() || down;
        boolean wantDown = down;
        return a -> checkInterface && a.flags().containsAll(required) && !(wantDown && a.flags().contains(IfFlag.UP))
                || properties.stream().anyMatch(p -> p.test(a));
    }

    /**
     * The order for {@code sort "key,key,..."}; each key sorts ascending, or descending with a {@code -} prefix, and
     * later keys break ties. Addresses and sizes of different families compare IPv4 first, so the order is total.
     */
    static Comparator<IfAddr> order(String keys, Optional<String> defaultInterface) throws Failure {
        Comparator<IfAddr> order = (a, b) -> 0;
        for (String clause : keys.split(",")) {
            String key = clause.trim().toLowerCase(Locale.ROOT);
            boolean descending = key.startsWith("-");
            if (descending || key.startsWith("+")) {
                key = key.substring(1);
            }
            Comparator<IfAddr> byFamily = Comparator.comparing(a -> !a.isIPv4());
            Comparator<IfAddr> c = switch (key) {
                case "address" -> byFamily.thenComparing(a -> Ip.toBig(a.address()));
                case "default" -> Comparator.comparing(a -> !defaultInterface.map(a.name()::equals).orElse(false));
                case "name" -> Comparator.comparing(IfAddr::name);
                case "port" -> (a, b) -> 0;
                case "private" -> Comparator.comparing(a -> !SpecialRanges.isPrivate(a));
                case "size" -> byFamily.thenComparingInt(IfAddr::prefixLength);
                case "type" -> byFamily;
                default -> throw new Failure("unknown sort key " + Functions.quote(clause.trim())
                        + " (want address, default, name, port, private, size or type, optionally with + or -)");
            };
            order = order.thenComparing(descending ? c.reversed() : c);
        }
        return order;
    }
}
