package io.caravan.agent.internal.sockaddr;

import java.math.BigInteger;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.regex.Pattern;

/**
 * IP address helpers that behave like Go's {@code net} package, because templates must print and classify addresses
 * the way Nomad does: literals only (never a DNS lookup), RFC 5952 text for IPv6, Go's address predicates.
 */
final class Ip {
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

    private Ip() {
    }

    /** Parses an IP literal; anything else is rejected rather than resolved (Java would do a DNS lookup). */
    static InetAddress parse(String text) {
        var v4 = IPV4.matcher(text);
        if (v4.matches()) {
            byte[] b = new byte[4];
            for (int i = 0; i < 4; i++) {
                int octet = Integer.parseInt(v4.group(i + 1));
                if (octet > 255) {
                    throw new IllegalArgumentException("not an IP address: " + text);
                }
                b[i] = (byte) octet;
            }
            return of(b);
        }
        if (!IPV6.matcher(text).matches()) {
            throw new IllegalArgumentException("not an IP address: " + text);
        }
        try {
            // A string with ':' is only ever parsed as an IPv6 literal, never looked up.
            InetAddress a = InetAddress.getByName(text);
            // Java turns ::ffff:a.b.c.d into an IPv4 address; keep the IPv6 form the text asked for.
            return a instanceof Inet4Address ? mapped(a.getAddress()) : of(a.getAddress());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: " + text, e);
        }
    }

    /** 4 bytes give an IPv4 address, 16 bytes always an IPv6 one (even an IPv4-mapped one). */
    static InetAddress of(byte[] raw) {
        try {
            return raw.length == 16 ? Inet6Address.getByAddress(null, raw, -1) : InetAddress.getByAddress(raw);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("bad address length " + raw.length, e);
        }
    }

    private static InetAddress mapped(byte[] v4) {
        byte[] b = new byte[16];
        b[10] = (byte) 0xff;
        b[11] = (byte) 0xff;
        System.arraycopy(v4, 0, b, 12, 4);
        return of(b);
    }

    static int bits(InetAddress a) {
        return a.getAddress().length * 8;
    }

    static BigInteger toBig(InetAddress a) {
        return new BigInteger(1, a.getAddress());
    }

    /** The address with value {@code v} modulo the address space, so arithmetic wraps like go-sockaddr's. */
    static InetAddress fromBig(BigInteger v, int bits) {
        byte[] raw = v.mod(BigInteger.ONE.shiftLeft(bits)).toByteArray();
        byte[] out = new byte[bits / 8];
        int n = Math.min(raw.length, out.length);
        System.arraycopy(raw, raw.length - n, out, out.length - n, n);
        return of(out);
    }

    static BigInteger mask(int prefix, int bits) {
        BigInteger all = BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
        return all.shiftRight(bits - prefix).shiftLeft(bits - prefix);
    }

    /**
     * Go's {@code net.IP.String()}: dotted quad (also for IPv4-mapped IPv6), or RFC 5952 (lower case, the longest run
     * of two or more zero groups as ::).
     */
    static String format(InetAddress a) {
        byte[] b = a.getAddress();
        if (b.length == 4) {
            return (b[0] & 255) + "." + (b[1] & 255) + "." + (b[2] & 255) + "." + (b[3] & 255);
        }
        if (isMapped(b)) {
            return format(of(Arrays.copyOfRange(b, 12, 16)));
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = (b[2 * i] & 255) << 8 | (b[2 * i + 1] & 255);
        }
        int bestStart = -1;
        int bestLen = 1; // a single zero group is not compressed
        for (int i = 0; i < 8;) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                s.append("::");
                i += bestLen - 1;
                continue;
            }
            if (s.length() > 0 && s.charAt(s.length() - 1) != ':') {
                s.append(':');
            }
            s.append(Integer.toHexString(groups[i]));
        }
        return s.toString();
    }

    private static boolean isMapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return b[10] == (byte) 0xff && b[11] == (byte) 0xff;
    }

    // Go's net.IP predicates, which the "flags" selector uses.

    static boolean isGlobalUnicast(InetAddress a) {
        boolean broadcast = a instanceof Inet4Address && toBig(a).equals(mask(32, 32));
        return !broadcast && !a.isAnyLocalAddress() && !a.isLoopbackAddress() && !a.isMulticastAddress()
                && !a.isLinkLocalAddress();
    }
}
