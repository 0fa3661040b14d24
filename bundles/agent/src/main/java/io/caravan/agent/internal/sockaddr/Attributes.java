package io.caravan.agent.internal.sockaddr;

import io.caravan.agent.internal.sockaddr.Functions.Failure;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The attributes {@code attr} and {@code join} print, and the operations of {@code math}. */
final class Attributes {
    private Attributes() {
    }

    static String get(IfAddr a, String attribute) throws Failure {
        Cidr net = a.network();
        int bits = net.bits();
        String key = attribute.toLowerCase(Locale.ROOT);
        switch (key) {
            case "address":
            case "host": // the address without its mask
                return a.addressText();
            case "name":
                return a.name();
            case "flags":
                return a.flagsText();
            case "string":
                return a.sockaddrString();
            case "type":
                return a.type();
            case "port":
                return "0";
            case "network":
                return text(net.network(), bits);
            case "mask_bits":
                return Integer.toString(a.prefixLength());
            case "netmask":
                return text(Ip.mask(a.prefixLength(), bits), bits);
            case "size":
                return net.size().toString();
            case "first_usable":
                // IPv4 skips the network address unless the net is a /31 or /32; IPv6 has no such address
                return text(a.isIPv4() && a.prefixLength() < 31 ? net.network().add(BigInteger.ONE) : net.network(),
                        bits);
            case "last_usable":
                return text(a.isIPv4() && a.prefixLength() < 31 ? net.last().subtract(BigInteger.ONE) : net.last(),
                        bits);
            case "hex":
                return pad(Ip.toBig(a.address()).toString(16), bits / 4);
            case "binary":
                return pad(Ip.toBig(a.address()).toString(2), bits);
            case "octets": {
                List<String> octets = new ArrayList<>();
                for (byte b : a.address().getAddress()) {
                    octets.add(Integer.toString(b & 255));
                }
                return String.join(" ", octets);
            }
            case "broadcast":
                requireFamily(a, true, key);
                return text(net.last(), bits);
            case "uint32":
                requireFamily(a, true, key);
                return Ip.toBig(a.address()).toString();
            case "uint128":
                requireFamily(a, false, key);
                return Ip.toBig(a.address()).toString();
            default:
                throw new Failure("unknown attribute " + Functions.quote(attribute) + " (want address, binary,"
                        + " broadcast, first_usable, flags, hex, host, last_usable, mask_bits, name, netmask, network,"
                        + " octets, port, size, string, type, uint32 or uint128)");
        }
    }

    private static void requireFamily(IfAddr a, boolean ipv4, String key) throws Failure {
        if (a.isIPv4() != ipv4) {
            throw new Failure("attribute " + key + " is only defined for " + (ipv4 ? "IPv4" : "IPv6")
                    + " addresses, not " + a.sockaddrString());
        }
    }

    private static String text(BigInteger value, int bits) {
        return Ip.format(Ip.fromBig(value, bits));
    }

    private static String pad(String digits, int width) {
        return "0".repeat(Math.max(0, width - digits.length())) + digits;
    }

    /**
     * {@code math "address" "+N"} adds to the address (wrapping around the address space), {@code math "network"
     * "±N"} counts from the network address (negative from its last address, wrapping inside the network), and
     * {@code math "mask" "N"} masks the address, widening the network to /N when /N is larger.
     */
    static IfAddr math(IfAddr a, String operation, String value) throws Failure {
        Cidr net = a.network();
        int bits = net.bits();
        switch (operation.toLowerCase(Locale.ROOT)) {
            case "address": {
                BigInteger n = signed(operation, value);
                return a.withAddress(Ip.fromBig(Ip.toBig(a.address()).add(n), bits), a.prefixLength());
            }
            case "network": {
                BigInteger n = signed(operation, value);
                return a.withAddress(Ip.fromBig(net.network().add(n.mod(net.size())), bits), a.prefixLength());
            }
            case "mask": {
                if (!value.matches("\\d{1,3}") || Integer.parseInt(value) > bits) {
                    throw new Failure("mask must be a prefix length from 0 to " + bits + " for "
                            + a.sockaddrString() + ", not " + Functions.quote(value));
                }
                int prefix = Integer.parseInt(value);
                BigInteger masked = Ip.toBig(a.address()).and(Ip.mask(prefix, bits));
                return a.withAddress(Ip.fromBig(masked, bits), Math.min(prefix, a.prefixLength()));
            }
            default:
                throw new Failure("unknown operation " + Functions.quote(operation)
                        + " (want address, network or mask)");
        }
    }

    private static BigInteger signed(String operation, String value) throws Failure {
        if (!value.matches("[-+]\\d{1,39}")) {
            throw new Failure("operation " + operation + " needs a signed decimal like \"+1\" or \"-2\", not "
                    + Functions.quote(value));
        }
        return new BigInteger(value.startsWith("+") ? value.substring(1) : value);
    }
}
