package io.caravan.agent.internal.sockaddr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpTest {

    @ParameterizedTest
    @CsvSource({
            "2001:DB8:0:0:1:0:0:1, 2001:db8::1:0:0:1",
            "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1", // a single zero group stays
            "2001:0:0:1:0:0:0:1,   2001:0:0:1::1", // the longest run is compressed
            "2001:db8:0:0:1:1:0:0, 2001:db8::1:1:0:0", // the first of equal runs
            "0:0:0:0:0:0:0:0,      ::",
            "::1,                  ::1",
            "1::,                  1::",
            "fe80::0a00:0005,      fe80::a00:5",
            "::ffff:10.0.0.1,      10.0.0.1", // IPv4-mapped prints as IPv4
            "10.0.0.5,             10.0.0.5"})
    void formatsLikeGo(String text, String expected) {
        assertEquals(expected, Ip.format(Ip.parse(text)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "10.1", "1.2.3.256", "10.0.0.1.2", "fe80::1%eth0", "", "::g"})
    void parsesOnlyLiterals(String text) {
        assertThrows(IllegalArgumentException.class, () -> Ip.parse(text));
    }

    @Test
    void containsMeansTheWholeNetworkIsInside() {
        Cidr ten = Cidr.parse("10.0.0.0/8");
        assertTrue(ten.contains(Cidr.parse("10.0.0.5/24")));
        assertTrue(ten.contains(Cidr.parse("10.255.255.255")));
        assertFalse(Cidr.parse("10.0.0.0/28").contains(Cidr.parse("10.0.0.5/24")));
        assertFalse(ten.contains(Cidr.parse("11.0.0.0/24")));
        assertFalse(ten.contains(Cidr.parse("::a00:5/128")), "families never contain each other");
        assertTrue(Cidr.parse("fc00::/7").contains(Cidr.parse("fd12:3456::1/64")));
        assertEquals(Cidr.parse("192.168.1.0/24"), Cidr.parse("192.168.1.77/24"), "host bits are ignored");
    }

    @Test
    void globalUnicastFollowsGo() {
        assertTrue(Ip.isGlobalUnicast(Ip.parse("10.0.0.5")));
        assertTrue(Ip.isGlobalUnicast(Ip.parse("2001:db8::1")));
        assertFalse(Ip.isGlobalUnicast(Ip.parse("255.255.255.255")));
        assertFalse(Ip.isGlobalUnicast(Ip.parse("169.254.1.1")));
        assertFalse(Ip.isGlobalUnicast(Ip.parse("224.0.0.1")));
        assertFalse(Ip.isGlobalUnicast(Ip.parse("0.0.0.0")));
    }
}
