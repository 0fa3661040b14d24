package io.caravan.agent.internal.sockaddr;

import static io.caravan.agent.internal.sockaddr.IfFlag.BROADCAST;
import static io.caravan.agent.internal.sockaddr.IfFlag.LOOPBACK;
import static io.caravan.agent.internal.sockaddr.IfFlag.MULTICAST;
import static io.caravan.agent.internal.sockaddr.IfFlag.UP;
import static io.caravan.agent.internal.sockaddr.SockaddrTemplateTest.HOST;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Error messages, and go-sockaddr's choices on hosts shaped differently from the main fixture. */
class SockaddrTemplateErrorsTest {

    private static String error(Interfaces host, String template) {
        return assertThrows(SockaddrException.class, () -> SockaddrTemplate.render(template, host),
                template).getMessage();
    }

    static Stream<Arguments> errors() {
        return Stream.of(
                // names
                Arguments.of("{{ GetFooIP }}", "unknown function \"GetFooIP\" in \"{{ GetFooIP }}\""),
                Arguments.of("{{ getprivateip }}",
                        "unknown function \"getprivateip\" (did you mean GetPrivateIP?) in \"{{ getprivateip }}\""),
                Arguments.of("{{ printf \"%s\" GetPrivateIP }}", "\"printf\" is not supported: it is a Go template"
                        + " builtin, and only go-sockaddr functions are available"
                        + " in \"{{ printf \"%s\" GetPrivateIP }}\""),
                Arguments.of("{{ if GetPrivateIP }}x{{ end }}", "\"if\" is not supported: only a pipeline of"
                        + " go-sockaddr functions is (no if, range, with or end) in \"{{ if GetPrivateIP }}\""),
                Arguments.of("{{ Attr \"address\" . }}", "\"Attr\" is not supported: it needs range or with, which"
                        + " are not supported; use attr in \"{{ Attr \"address\" . }}\""),
                // syntax
                Arguments.of("{{ $x := GetPrivateIP }}",
                        "variables ($…) are not supported in \"{{ $x := GetPrivateIP }}\""),
                Arguments.of("{{ (GetPrivateIP) }}",
                        "parentheses are not supported; write a single pipeline in \"{{ (GetPrivateIP) }}\""),
                Arguments.of("{{ .Name }}", "fields (.Name) are not supported in \"{{ .Name }}\""),
                Arguments.of("x {{ GetPrivateIP ", "unclosed action (missing }}) in \"{{ GetPrivateIP \""),
                Arguments.of("{{ }}", "empty action in \"{{ }}\""),
                Arguments.of("{{ | attr \"address\" }}", "missing function before | in \"{{ | attr \"address\" }}\""),
                Arguments.of("{{ GetPrivateIP | }}", "missing function after | in \"{{ GetPrivateIP | }}\""),
                Arguments.of("{{ GetInterfaceIP \"eth0 }}", "unterminated string in \"{{ GetInterfaceIP \"eth0 }}\""),
                Arguments.of("{{ GetAllInterfaces | limit 1.5 }}",
                        "bad number 1.5 (only decimal integers are supported)"
                                + " in \"{{ GetAllInterfaces | limit 1.5 }}\""),
                Arguments.of("{{ /* not a comment */ GetPrivateIP }}",
                        "a comment must be the whole action in \"{{ /* not a comment */ GetPrivateIP }}\""),
                Arguments.of("{{ GetPrivateIP ; }}", "unexpected character ';' in \"{{ GetPrivateIP ; }}\""),
                Arguments.of("{{ \"a\" \"b\" }}",
                        "only a function can take arguments, not \"a\" in \"{{ \"a\" \"b\" }}\""),
                // argument counts and types
                Arguments.of("{{ GetPrivateIP \"eth0\" }}",
                        "GetPrivateIP \"eth0\": wrong number of arguments: want 0, got 1"),
                Arguments.of("{{ GetInterfaceIP }}", "GetInterfaceIP: wrong number of arguments: want 1 (name), got 0"),
                Arguments.of("{{ GetAllInterfaces | include \"name\" }}", "include \"name\": wrong number of"
                        + " arguments: want 3 (selector, value, interfaces), got 2 counting the value piped in"),
                Arguments.of("{{ GetAllInterfaces | limit \"x\" }}",
                        "limit \"x\": count must be an integer, not the string \"x\""),
                Arguments.of("{{ GetPrivateIP | attr \"address\" }}", "attr \"address\": interfaces must be a list of"
                        + " interfaces (e.g. from GetAllInterfaces), not the string \"10.0.0.5\""),
                Arguments.of("{{ GetAllInterfaces | attr 5 }}", "attr 5: attribute must be a string, not the number 5"),
                // interfaces
                Arguments.of("{{ GetInterfaceIP \"eth9\" }}", "GetInterfaceIP \"eth9\": no interface named eth9"),
                Arguments.of("{{ GetInterfaceIPs \"eth9\" }}", "GetInterfaceIPs \"eth9\": no interface named eth9"),
                Arguments.of("{{ GetInterfaceIP \"lo\" }}", "GetInterfaceIP \"lo\": interface lo has no forwardable"
                        + " address (only loopback or link-local ones); use GetInterfaceIPs or GetAllInterfaces to"
                        + " pick one of those"),
                // selector arguments
                Arguments.of("{{ GetAllInterfaces | include \"network\" \"10.0.0.0/33\" | attr \"address\" }}",
                        "include \"network\" \"10.0.0.0/33\": invalid CIDR \"10.0.0.0/33\": bad prefix length /33"
                                + " for a 32-bit address"),
                Arguments.of("{{ GetAllInterfaces | exclude \"network\" \"office\" | attr \"address\" }}",
                        "exclude \"network\" \"office\": invalid CIDR \"office\": not an IP address: office"),
                Arguments.of("{{ GetAllInterfaces | include \"network\" \"10.0.0.256/8\" | attr \"address\" }}",
                        "include \"network\" \"10.0.0.256/8\": invalid CIDR \"10.0.0.256/8\": not an IP address:"
                                + " 10.0.0.256"),
                Arguments.of("{{ GetAllInterfaces | include \"name\" \"(\" | attr \"address\" }}",
                        "include \"name\" \"(\": invalid regexp \"(\": Unclosed group"),
                Arguments.of("{{ GetAllInterfaces | include \"flags\" \"shiny\" | attr \"address\" }}",
                        "include \"flags\" \"shiny\": unknown flag \"shiny\" (want broadcast, down, forwardable,"
                                + " global unicast, interface-local multicast, link-local multicast, link-local"
                                + " unicast, loopback, multicast, point-to-point, unspecified or up)"),
                Arguments.of("{{ GetAllInterfaces | include \"colour\" \"red\" | attr \"address\" }}",
                        "include \"colour\" \"red\": unknown selector \"colour\" (want address, flag, name, network,"
                                + " port, rfc, size or type)"),
                Arguments.of("{{ GetAllInterfaces | include \"rfc\" \"1234\" | attr \"address\" }}",
                        "include \"rfc\" \"1234\": unsupported RFC 1234 (known: [919, 1112, 1122, 1918, 2544, 2765,"
                                + " 2928, 3056, 3068, 3171, 3330, 3849, 3927, 4038, 4193, 4291, 4380, 4773, 4843,"
                                + " 5180, 5735, 5737, 6052, 6333, 6598, 6666, 6890, 7335])"),
                Arguments.of("{{ GetAllInterfaces | include \"rfc\" \"private\" | attr \"address\" }}",
                        "include \"rfc\" \"private\": \"private\" is not an RFC number"),
                Arguments.of("{{ GetAllInterfaces | include \"size\" \"129\" | attr \"address\" }}",
                        "include \"size\" \"129\": size must be a prefix length from 0 to 128, not \"129\""),
                Arguments.of("{{ GetAllInterfaces | include \"type\" \"ipv5\" | attr \"address\" }}",
                        "include \"type\" \"ipv5\": unknown type \"ipv5\" (want ip, ipv4, ipv6 or unix)"),
                // helpers
                Arguments.of("{{ GetAllInterfaces | sort \"speed\" | attr \"address\" }}",
                        "sort \"speed\": unknown sort key \"speed\" (want address, default, name, port, private, size"
                                + " or type, optionally with + or -)"),
                Arguments.of("{{ GetAllInterfaces | attr \"colour\" }}", "attr \"colour\": unknown attribute"
                        + " \"colour\" (want address, binary, broadcast, first_usable, flags, hex, host, last_usable,"
                        + " mask_bits, name, netmask, network, octets, port, size, string, type, uint32 or uint128)"),
                Arguments.of("{{ GetAllInterfaces | unique \"type\" | attr \"address\" }}",
                        "unique \"type\": unique works on address or name, not \"type\""),
                Arguments.of("{{ GetAllInterfaces | limit -1 | attr \"address\" }}",
                        "limit -1: count must not be negative, not -1"),
                Arguments.of("{{ GetAllInterfaces | offset 7 | attr \"address\" }}",
                        "offset 7: offset 7 is beyond the 6 interface addresses"),
                Arguments.of("{{ GetAllInterfaces | math \"address\" \"1\" | attr \"address\" }}",
                        "math \"address\" \"1\": operation address needs a signed decimal like \"+1\" or \"-2\","
                                + " not \"1\""),
                Arguments.of("{{ GetDefaultInterfaces | math \"mask\" \"33\" | attr \"address\" }}",
                        "math \"mask\" \"33\": mask must be a prefix length from 0 to 32 for 10.0.0.5/24, not \"33\""),
                Arguments.of("{{ GetAllInterfaces | math \"port\" \"+1\" | attr \"address\" }}",
                        "math \"port\" \"+1\": unknown operation \"port\" (want address, network or mask)"),
                // results
                Arguments.of("{{ GetAllInterfaces }}", "\"{{ GetAllInterfaces }}\" ends with a list of interfaces;"
                        + " finish the pipeline with | attr \"address\" (the first) or | join \"address\" \" \" (all)"),
                Arguments.of("{{ GetAllInterfaces | include \"name\" \"eth9\" | attr \"address\" }}:4647",
                        "template evaluated to no address: \"{{ GetAllInterfaces | include \"name\" \"eth9\" |"
                                + " attr \"address\" }}\" found nothing on this host"),
                Arguments.of("{{ GetAllInterfaces | offset 6 | join \"address\" \" \" }}",
                        "template evaluated to no address: \"{{ GetAllInterfaces | offset 6 | join \"address\""
                                + " \" \" }}\" found nothing on this host"),
                Arguments.of("", "template evaluated to no address"),
                Arguments.of(" \n ", "template evaluated to no address"),
                Arguments.of("{{/* nothing */}}", "template evaluated to no address"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("errors")
    void explainsWhatWentWrong(String template, String message) {
        assertEquals(message, error(HOST, template));
    }

    @Test
    void anEmptyAddressIsAnErrorEvenWhereGoSockaddrPrintsNothing() {
        Interfaces onlyLoopback = Interfaces.of(List.of(IfAddr.parse("lo", "127.0.0.1/8", UP, LOOPBACK)));
        assertEquals("template evaluated to no address: \"{{ GetPrivateIP }}\" found nothing on this host",
                error(onlyLoopback, "{{ GetPrivateIP }}:4647"));
        assertEquals("template evaluated to no address: \"{{ GetDefaultInterfaces | attr \"address\" }}\" found"
                + " nothing on this host", error(onlyLoopback, "{{ GetDefaultInterfaces | attr \"address\" }}"));
    }

    @Test
    void withoutADefaultRouteTheLargestPrivateNetworkWins() throws SockaddrException {
        Interfaces noRoute = Interfaces.of(HOST.addresses());
        assertEquals("172.17.0.1", SockaddrTemplate.render("{{ GetPrivateIP }}", noRoute));
        assertEquals("10.0.0.5", SockaddrTemplate.render("{{ GetPrivateIP }}", HOST));
    }

    @Test
    void privateMeansRfc6890AndForwardable() throws SockaddrException {
        IfFlag[] ether = {UP, BROADCAST, MULTICAST};
        Interfaces host = Interfaces.of(List.of(
                IfAddr.parse("eth0", "203.0.113.7/24", ether), // TEST-NET-3: special, but not forwardable
                IfAddr.parse("eth1", "100.64.3.4/10", ether), // RFC 6598 shared address space
                IfAddr.parse("eth2", "169.254.9.9/16", ether), // link-local: not forwardable
                IfAddr.parse("wlan0", "192.168.1.20/24", BROADCAST, MULTICAST), // down
                IfAddr.parse("wg0", "fd00::5/64", UP), // IPv6 ULA
                IfAddr.parse("wg0", "2001:db8::5/64", UP)), "eth0");
        assertEquals("100.64.3.4", SockaddrTemplate.render("{{ GetPrivateIP }}", host));
        assertEquals("100.64.3.4 fd00::5",
                SockaddrTemplate.render("{{ GetPrivateInterfaces | join \"address\" \" \" }}", host));
        // every forwardable private address, up or down
        assertEquals("100.64.3.4 192.168.1.20 fd00::5", SockaddrTemplate.render("{{ GetPrivateIPs }}", host));
        assertEquals("template evaluated to no address: \"{{ GetPublicIP }}\" found nothing on this host",
                error(host, "{{ GetPublicIP }}"));
        assertEquals("wlan0", SockaddrTemplate.render("{{ GetAllInterfaces | include \"flags\" \"down\" | attr"
                + " \"name\" }}", host));
        assertEquals("203.0.113.7 100.64.3.4 169.254.9.9 192.168.1.20", SockaddrTemplate.render(
                "{{ GetAllInterfaces | include \"rfc\" \"5737|6598|3927|1918\" | join \"address\" \" \" }}", host));
        assertEquals("fd00::5", SockaddrTemplate.render("{{ GetInterfaceIP \"wg0\" }}", host),
                "documentation addresses are not forwardable");
        Interfaces ulaOnly = Interfaces.of(List.of(IfAddr.parse("wg0", "fd00::5/64", UP)));
        assertEquals("fd00::5", SockaddrTemplate.render("{{ GetPrivateIP }}", ulaOnly),
                "with no private IPv4 address, a private IPv6 one");
    }

    @Test
    void uniqueDropsRepeatsOfThePreviousAddress() throws SockaddrException {
        Interfaces bonded = Interfaces.of(List.of(IfAddr.parse("bond0", "10.1.1.1/24", UP),
                IfAddr.parse("bond0.1", "10.1.1.1/24", UP), IfAddr.parse("bond0.2", "10.1.1.2/24", UP)));
        assertEquals("bond0 bond0.2", SockaddrTemplate.render("{{ GetAllInterfaces | unique \"address\" | join"
                + " \"name\" \" \" }}", bonded));
    }

    @Test
    void renderSingleWantsExactlyOneAddress() throws SockaddrException {
        assertEquals("10.0.0.5:4647", SockaddrTemplate.renderSingle("{{ GetPrivateIP }}:4647", HOST));
        assertEquals("172.17.0.1", SockaddrTemplate.renderSingle(" {{ GetInterfaceIP \"docker0\" }}\n", HOST));
        SockaddrException e = assertThrows(SockaddrException.class,
                () -> SockaddrTemplate.renderSingle("{{ GetPrivateIPs }}", HOST));
        assertEquals("template evaluated to several addresses (\"172.17.0.1 10.0.0.5\"); narrow it to one, e.g."
                + " with | limit 1 or attr \"address\"", e.getMessage());
    }
}
