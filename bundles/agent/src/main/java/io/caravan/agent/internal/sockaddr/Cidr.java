package io.caravan.agent.internal.sockaddr;

import java.math.BigInteger;
import java.net.InetAddress;

/** A network: its first address, prefix length and family width (32 or 128 bits). */
record Cidr(BigInteger network, int prefix, int bits) {

    static Cidr of(InetAddress address, int prefix) {
        int bits = Ip.bits(address);
        return new Cidr(Ip.toBig(address).and(Ip.mask(prefix, bits)), prefix, bits);
    }

    /** {@code 10.0.0.0/8}, {@code fc00::/7}, or a bare address (a /32 or /128); host bits are ignored. */
    static Cidr parse(String text) {
        String t = text.trim();
        int slash = t.indexOf('/');
        InetAddress address = Ip.parse(slash < 0 ? t : t.substring(0, slash));
        int bits = Ip.bits(address);
        int prefix = bits;
        if (slash >= 0) {
            String p = t.substring(slash + 1);
            if (!p.matches("\\d{1,3}") || Integer.parseInt(p) > bits) {
                throw new IllegalArgumentException("bad prefix length /" + p + " for a " + bits + "-bit address");
            }
            prefix = Integer.parseInt(p);
        }
        return of(address, prefix);
    }

    /**
     * go-sockaddr's containment: the other network lies wholly inside this one (so 10.0.0.5/24 is in 10.0.0.0/8 but
     * not in 10.0.0.0/28). Different families never contain each other.
     */
    boolean contains(Cidr other) {
        return bits == other.bits && prefix <= other.prefix
                && other.network.and(Ip.mask(prefix, bits)).equals(network);
    }

    BigInteger size() {
        return BigInteger.ONE.shiftLeft(bits - prefix);
    }

    /** The highest address of the network (the IPv4 broadcast address). */
    BigInteger last() {
        return network.add(size()).subtract(BigInteger.ONE);
    }
}
