package io.caravan.agent.internal.sockaddr;

import static io.caravan.agent.internal.sockaddr.IfFlag.BROADCAST;
import static io.caravan.agent.internal.sockaddr.IfFlag.LOOPBACK;
import static io.caravan.agent.internal.sockaddr.IfFlag.MULTICAST;
import static io.caravan.agent.internal.sockaddr.IfFlag.UP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every function, selector, sort key and attribute against a fake host: eth0 (the default route) with a private
 * address and a link-local one, eth1 with a public address, docker0, and lo. Listed in interface-index order, as the
 * system would list them.
 */
class SockaddrTemplateTest {
    private static final IfFlag[] ETHER = {UP, BROADCAST, MULTICAST};

    static final Interfaces HOST = Interfaces.of(List.of(
            IfAddr.parse("lo", "127.0.0.1/8", UP, LOOPBACK),
            IfAddr.parse("lo", "::1/128", UP, LOOPBACK),
            IfAddr.parse("eth0", "10.0.0.5/24", ETHER),
            IfAddr.parse("eth0", "fe80::a00:5/64", ETHER),
            // not 203.0.113.7: go-sockaddr counts that documentation net as neither private nor public (tested below)
            IfAddr.parse("eth1", "93.184.216.34/24", ETHER),
            IfAddr.parse("docker0", "172.17.0.1/16", ETHER)), "eth0");

    private static final String ETH0_V4 = "GetDefaultInterfaces | include \"type\" \"IPv4\" | ";
    private static final String ETH0_V6 = "GetDefaultInterfaces | include \"type\" \"IPv6\" | ";
    private static final String ALL = "127.0.0.1 ::1 10.0.0.5 fe80::a00:5 93.184.216.34 172.17.0.1";

    private static String render(String template) throws SockaddrException {
        return SockaddrTemplate.render(template, HOST);
    }

    private static String error(Interfaces host, String template) {
        return assertThrows(SockaddrException.class, () -> SockaddrTemplate.render(template, host),
                template).getMessage();
    }

    static Stream<Arguments> sources() {
        return Stream.of(
                Arguments.of("{{ GetPrivateIP }}", "10.0.0.5"),
                Arguments.of("{{GetPrivateIP}}", "10.0.0.5"),
                Arguments.of("{{ GetPublicIP }}", "93.184.216.34"),
                // all private forwardable addresses, IPv4 first, larger networks first
                Arguments.of("{{ GetPrivateIPs }}", "172.17.0.1 10.0.0.5"),
                Arguments.of("{{ GetPublicIPs }}", "93.184.216.34"),
                Arguments.of("{{ GetInterfaceIP \"eth0\" }}", "10.0.0.5"),
                Arguments.of("{{ GetInterfaceIP \"eth1\" }}", "93.184.216.34"),
                Arguments.of("{{ GetInterfaceIP `docker0` }}", "172.17.0.1"),
                Arguments.of("{{ GetInterfaceIPs \"eth0\" }}", "10.0.0.5 fe80::a00:5"),
                Arguments.of("{{ GetInterfaceIPs \"lo\" }}", "127.0.0.1 ::1"),
                Arguments.of("{{ GetAllInterfaces | join \"address\" \" \" }}", ALL),
                Arguments.of("{{ GetDefaultInterfaces | join \"address\" \" \" }}", "10.0.0.5 fe80::a00:5"),
                Arguments.of("{{ GetDefaultInterfaces | exclude \"type\" \"IPv6\" | attr \"address\" }}", "10.0.0.5"),
                Arguments.of("{{ GetPrivateInterfaces | join \"name\" \",\" }}", "eth0,docker0"),
                Arguments.of("{{ GetPublicInterfaces | attr \"name\" }}", "eth1"),
                Arguments.of("{{ GetPrivateInterfaces | include \"type\" \"IPv4\" | limit 1 | attr \"address\" }}",
                        "10.0.0.5"),
                Arguments.of("{{ GetAllInterfaces | include \"network\" \"10.0.0.0/8\" | attr \"address\" }}",
                        "10.0.0.5"),
                Arguments.of("{{ GetAllInterfaces | include \"name\" \"^eth\" | sort \"address\""
                        + " | join \"address\" \" \" }}",
                        "10.0.0.5 93.184.216.34 fe80::a00:5"),
                // the starting value ".", explicit last arguments, and function names as arguments
                Arguments.of("{{ . | include \"name\" \"docker\" | attr \"address\" }}", "172.17.0.1"),
                Arguments.of("{{ include \"name\" \"eth1\" . | attr \"name\" }}", "eth1"),
                Arguments.of("{{ attr \"address\" GetPublicInterfaces }}", "93.184.216.34"),
                Arguments.of("{{ \"literal\" }}", "literal"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("sources")
    void sourcesAndPipelines(String template, String expected) throws SockaddrException {
        assertEquals(expected, render(template));
    }

    static Stream<Arguments> text() {
        return Stream.of(
                Arguments.of("10.1.2.3", "10.1.2.3"),
                Arguments.of("{{ GetPrivateIP }}:4647", "10.0.0.5:4647"),
                Arguments.of("[{{ GetInterfaceIP \"eth0\" }}]:80", "[10.0.0.5]:80"),
                Arguments.of("{{ GetPrivateIP }} {{ GetPublicIP }}", "10.0.0.5 93.184.216.34"),
                Arguments.of("  {{ GetPrivateIP }}\n", "10.0.0.5"),
                Arguments.of("a {{- GetPrivateIP -}} \n b", "a10.0.0.5b"),
                Arguments.of("{{/* the LAN */}}{{ GetPrivateIP }}", "10.0.0.5"),
                // "}}" inside a string does not end the action
                Arguments.of("{{ GetAllInterfaces | include \"name\" \"eth1\" | join \"name\" \"}}\" }}", "eth1"),
                Arguments.of("{{ GetAllInterfaces | include \"name\" \"eth\" | join \"name\" \"}}\" }}",
                        "eth0}}eth0}}eth1"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("text")
    void textAroundActions(String template, String expected) throws SockaddrException {
        assertEquals(expected, render(template));
    }

    static Stream<Arguments> selectors() {
        return Stream.of(
                // address: a regexp over the address with its prefix length
                Arguments.of("include \"address\" \"^172\"", "172.17.0.1"),
                Arguments.of("include \"address\" \"/24$\"", "10.0.0.5 93.184.216.34"),
                Arguments.of("include \"flag\" \"loopback\"", "127.0.0.1 ::1"),
                Arguments.of("include \"flags\" \"up\"", ALL),
                Arguments.of("include \"flags\" \"up|loopback\"", "127.0.0.1 ::1"),
                Arguments.of("include \"flags\" \"broadcast\"", "10.0.0.5 fe80::a00:5 93.184.216.34 172.17.0.1"),
                Arguments.of("include \"flags\" \"multicast\"", "10.0.0.5 fe80::a00:5 93.184.216.34 172.17.0.1"),
                Arguments.of("include \"flags\" \"forwardable\"", "10.0.0.5 93.184.216.34 172.17.0.1"),
                Arguments.of("include \"flags\" \"global unicast\"", "10.0.0.5 93.184.216.34 172.17.0.1"),
                Arguments.of("include \"flags\" \"link-local unicast\"", "fe80::a00:5"),
                Arguments.of("exclude \"flags\" \"unspecified\"", ALL),
                Arguments.of("exclude \"flags\" \"point-to-point\"", ALL),
                Arguments.of("exclude \"flags\" \"link-local multicast|interface-local multicast\"", ALL),
                Arguments.of("exclude \"flags\" \"down\"", ALL),
                Arguments.of("include \"name\" \"^docker\"", "172.17.0.1"),
                Arguments.of("exclude \"name\" \"^(lo|eth)\"", "172.17.0.1"),
                Arguments.of("include \"network\" \"172.16.0.0/12\"", "172.17.0.1"),
                Arguments.of("include \"network\" \"10.0.0.0/8|172.16.0.0/12\"", "10.0.0.5 172.17.0.1"),
                Arguments.of("include \"network\" \"fe80::/10\"", "fe80::a00:5"),
                // an interface network must lie wholly inside the CIDR: 10.0.0.5/24 is not inside a /28
                Arguments.of("exclude \"network\" \"10.0.0.0/28\" | include \"name\" \"eth0\"",
                        "10.0.0.5 fe80::a00:5"),
                Arguments.of("exclude \"network\" \"10.0.0.0/8|172.16.0.0/12\"",
                        "127.0.0.1 ::1 fe80::a00:5 93.184.216.34"),
                Arguments.of("include \"port\" \"^0$\"", ALL),
                Arguments.of("exclude \"port\" \"80\"", ALL),
                Arguments.of("include \"rfc\" \"1918\"", "10.0.0.5 172.17.0.1"),
                Arguments.of("include \"rfcs\" \"1122|4291\"", "127.0.0.1 ::1 fe80::a00:5"),
                Arguments.of("include \"RFC\" \"6890\"", "127.0.0.1 ::1 10.0.0.5 fe80::a00:5 172.17.0.1"),
                Arguments.of("exclude \"rfc\" \"6890\"", "93.184.216.34"),
                Arguments.of("include \"size\" \"24\"", "10.0.0.5 93.184.216.34"),
                Arguments.of("include \"size\" \"128\"", "::1"),
                Arguments.of("include \"type\" \"IPv6\"", "::1 fe80::a00:5"),
                Arguments.of("include \"type\" \"ipv4\"", "127.0.0.1 10.0.0.5 93.184.216.34 172.17.0.1"),
                Arguments.of("include \"type\" \"ipv4|ipv6\"", ALL),
                Arguments.of("include \"type\" \"IP\"", ALL),
                Arguments.of("exclude \"type\" \"unix\"", ALL));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("selectors")
    void includeAndExclude(String filter, String expected) throws SockaddrException {
        assertEquals(expected, render("{{ GetAllInterfaces | " + filter + " | join \"address\" \" \" }}"));
    }

    static Stream<Arguments> sortKeys() {
        return Stream.of(
                Arguments.of("name", "172.17.0.1 10.0.0.5 fe80::a00:5 93.184.216.34 127.0.0.1 ::1"),
                Arguments.of("-name", "127.0.0.1 ::1 93.184.216.34 10.0.0.5 fe80::a00:5 172.17.0.1"),
                Arguments.of("address", "10.0.0.5 93.184.216.34 127.0.0.1 172.17.0.1 ::1 fe80::a00:5"),
                Arguments.of("+address", "10.0.0.5 93.184.216.34 127.0.0.1 172.17.0.1 ::1 fe80::a00:5"),
                Arguments.of("-address", "fe80::a00:5 ::1 172.17.0.1 127.0.0.1 93.184.216.34 10.0.0.5"),
                Arguments.of("default", "10.0.0.5 fe80::a00:5 127.0.0.1 ::1 93.184.216.34 172.17.0.1"),
                Arguments.of("-default", "127.0.0.1 ::1 93.184.216.34 172.17.0.1 10.0.0.5 fe80::a00:5"),
                Arguments.of("private", "127.0.0.1 ::1 10.0.0.5 fe80::a00:5 172.17.0.1 93.184.216.34"),
                Arguments.of("-private", "93.184.216.34 127.0.0.1 ::1 10.0.0.5 fe80::a00:5 172.17.0.1"),
                // larger networks (shorter prefixes) first
                Arguments.of("size", "127.0.0.1 172.17.0.1 10.0.0.5 93.184.216.34 fe80::a00:5 ::1"),
                Arguments.of("-size", "::1 fe80::a00:5 10.0.0.5 93.184.216.34 172.17.0.1 127.0.0.1"),
                Arguments.of("type", "127.0.0.1 10.0.0.5 93.184.216.34 172.17.0.1 ::1 fe80::a00:5"),
                Arguments.of("-type", "::1 fe80::a00:5 127.0.0.1 10.0.0.5 93.184.216.34 172.17.0.1"),
                Arguments.of("port", ALL),
                Arguments.of("private,type,address", "10.0.0.5 127.0.0.1 172.17.0.1 ::1 fe80::a00:5 93.184.216.34"),
                Arguments.of("+name, -address", "172.17.0.1 fe80::a00:5 10.0.0.5 93.184.216.34 ::1 127.0.0.1"),
                Arguments.of("default,-type,size", "fe80::a00:5 10.0.0.5 ::1 127.0.0.1 172.17.0.1 93.184.216.34"));
    }

    @ParameterizedTest(name = "sort \"{0}\"")
    @MethodSource("sortKeys")
    void sort(String keys, String expected) throws SockaddrException {
        assertEquals(expected, render("{{ GetAllInterfaces | sort \"" + keys + "\" | join \"address\" \" \" }}"));
    }

    static Stream<Arguments> attributes() {
        return Stream.of(
                Arguments.of("address", "10.0.0.5", "fe80::a00:5"),
                Arguments.of("host", "10.0.0.5", "fe80::a00:5"),
                Arguments.of("name", "eth0", "eth0"),
                Arguments.of("flags", "up|broadcast|multicast", "up|broadcast|multicast"),
                Arguments.of("string", "10.0.0.5/24", "fe80::a00:5/64"),
                Arguments.of("type", "IPv4", "IPv6"),
                Arguments.of("port", "0", "0"),
                Arguments.of("network", "10.0.0.0", "fe80::"),
                Arguments.of("mask_bits", "24", "64"),
                Arguments.of("netmask", "255.255.255.0", "ffff:ffff:ffff:ffff::"),
                Arguments.of("size", "256", "18446744073709551616"),
                Arguments.of("first_usable", "10.0.0.1", "fe80::"),
                Arguments.of("last_usable", "10.0.0.254", "fe80::ffff:ffff:ffff:ffff"),
                Arguments.of("hex", "0a000005", "fe80000000000000000000000a000005"),
                Arguments.of("binary", "00001010000000000000000000000101",
                        "1111111010000000" + "0".repeat(80) + "00001010000000000000000000000101"),
                Arguments.of("octets", "10 0 0 5", "254 128 0 0 0 0 0 0 0 0 0 0 10 0 0 5"),
                Arguments.of("ADDRESS", "10.0.0.5", "fe80::a00:5"));
    }

    @ParameterizedTest(name = "attr \"{0}\"")
    @MethodSource("attributes")
    void attr(String attribute, String ipv4, String ipv6) throws SockaddrException {
        String eth0 = "{{ GetAllInterfaces | include \"name\" \"eth0\" | include \"type\" \"%s\" | attr \"%s\" }}";
        assertEquals(ipv4, render(eth0.formatted("IPv4", attribute)));
        assertEquals(ipv6, render(eth0.formatted("IPv6", attribute)));
    }

    @Test
    void familySpecificAttributes() throws SockaddrException {
        assertEquals("10.0.0.255", render("{{ GetDefaultInterfaces | attr \"broadcast\" }}"));
        assertEquals("167772165", render("{{ GetDefaultInterfaces | attr \"uint32\" }}"));
        String loopback6 = "{{ GetAllInterfaces | include \"size\" \"128\" | attr \"%s\" }}";
        assertEquals("1", render(loopback6.formatted("uint128")));
        assertEquals("::1", render(loopback6.formatted("string")), "a host address prints without /128");
        assertEquals("up|loopback", render(loopback6.formatted("flags")));
        assertEquals("attr \"broadcast\": attribute broadcast is only defined for IPv4 addresses, not ::1",
                error(HOST, loopback6.formatted("broadcast")));
        assertEquals("attr \"uint128\": attribute uint128 is only defined for IPv6 addresses, not 10.0.0.5/24",
                error(HOST, "{{ GetDefaultInterfaces | attr \"uint128\" }}"));
    }

    static Stream<Arguments> helpers() {
        return Stream.of(
                Arguments.of("GetAllInterfaces | limit 2 | join \"address\" \" \"", "127.0.0.1 ::1"),
                Arguments.of("GetAllInterfaces | limit 100 | join \"address\" \" \"", ALL),
                Arguments.of("GetAllInterfaces | offset 1 | limit 1 | attr \"address\"", "::1"),
                Arguments.of("GetAllInterfaces | offset -1 | attr \"address\"", "172.17.0.1"),
                // go-sockaddr's own documentation writes the offset as a string
                Arguments.of("GetAllInterfaces | offset \"-2\" | join \"address\" \" \"", "93.184.216.34 172.17.0.1"),
                Arguments.of("GetAllInterfaces | sort \"name\" | unique \"name\" | join \"name\" \" \"",
                        "docker0 eth0 eth1 lo"),
                Arguments.of("GetAllInterfaces | unique \"address\" | join \"address\" \" \"", ALL),
                Arguments.of("GetAllInterfaces | include \"name\" \"^eth\" | join \"name\" \"+\"", "eth0+eth0+eth1"),
                Arguments.of(ETH0_V4 + "math \"address\" \"+1\" | attr \"address\"",
                        "10.0.0.6"),
                Arguments.of(ETH0_V4 + "math \"address\" \"-6\" | attr \"address\"",
                        "9.255.255.255"),
                Arguments.of(ETH0_V4 + "math \"network\" \"+2\" | attr \"address\"",
                        "10.0.0.2"),
                Arguments.of(ETH0_V4 + "math \"network\" \"+258\" | attr \"address\"",
                        "10.0.0.2"),
                Arguments.of(ETH0_V4 + "math \"network\" \"-1\" | attr \"address\"",
                        "10.0.0.255"),
                Arguments.of(ETH0_V4 + "math \"mask\" \"16\" | attr \"string\"",
                        "10.0.0.0/16"),
                Arguments.of(ETH0_V4 + "math \"mask\" \"28\" | attr \"string\"",
                        "10.0.0.0/24"),
                Arguments.of(ETH0_V6 + "math \"address\" \"+1\" | attr \"address\"",
                        "fe80::a00:6"),
                Arguments.of(ETH0_V6 + "math \"network\" \"-1\" | attr \"address\"",
                        "fe80::ffff:ffff:ffff:ffff"),
                Arguments.of("GetAllInterfaces | include \"name\" \"lo\" | math \"address\" \"-1\""
                        + " | join \"address\" \" \"",
                        "127.0.0.0 ::"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("helpers")
    void listHelpers(String pipeline, String expected) throws SockaddrException {
        assertEquals(expected, render("{{ " + pipeline + " }}"));
    }
}
