package io.caravan.fingerprint.network.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.caravan.plugin.api.fingerprint.HostFacts;

class NetworkFingerprinterTest {

    /** This machine's eth0 (as the JDK lists it: IPv6 first) and lo. */
    private static final Map<String, List<InetAddress>> INTERFACES = Map.of(
            "eth0", List.of(ip("fe80::fc:ff:fe00:1"), ip("fd00::2"), ip("192.0.2.2")),
            "lo", List.of(ip("::1"), ip("127.0.0.1")),
            "ens5", List.of(ip("fe80::8ff:aff:fe0b:c0d"), ip("2001:db8::10")),
            "wg0", List.of(ip("fe80::1")));

    private static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static HostFacts options(Map<String, String> options) {
        return new HostFacts() {
            @Override public Map<String, String> attributes() { return Map.of(); }
            @Override public Map<String, String> options() { return options; }
            @Override public Path dataDir() { return Path.of("/tmp"); }
        };
    }

    private Map<String, String> fingerprint(String fixture, Map<String, String> options) throws Exception {
        Path root = Path.of(getClass().getResource("/" + fixture).toURI());
        NetworkFingerprinter network = new NetworkFingerprinter(root,
                name -> Optional.ofNullable(INTERFACES.get(name)));
        return network.fingerprint(options(options)).attributes();
    }

    @Test
    void defaultRouteInterfaceIPv4First() throws Exception {
        assertEquals(Map.of("unique.network.ip-address", "192.0.2.2"), fingerprint("vm", Map.of()));
    }

    @Test
    void preferredIPv6() throws Exception {
        assertEquals(Map.of("unique.network.ip-address", "fd00::2"),
                fingerprint("vm", Map.of("preferred_address_family", "ipv6")));
    }

    @Test
    void configuredInterface() throws Exception {
        assertEquals(Map.of("unique.network.ip-address", "127.0.0.1"),
                fingerprint("vm", Map.of("network_interface", "lo")));
    }

    @Test
    void unknownConfiguredInterfaceIsAnError() {
        assertThrows(IOException.class, () -> fingerprint("vm", Map.of("network_interface", "eth9")));
    }

    @Test
    void lowestMetricDefaultRouteWins() throws Exception {
        Path root = Path.of(getClass().getResource("/two-uplinks").toURI());
        assertEquals(Optional.of("eth0"), new NetworkFingerprinter(root, name -> Optional.empty())
                .defaultRouteInterface());
    }

    @Test
    void ipv6OnlyHostUsesTheIPv6DefaultRoute() throws Exception {
        assertEquals(Map.of("unique.network.ip-address", "2001:db8::10"), fingerprint("ipv6-only", Map.of()));
    }

    @Test
    void noDefaultRouteIsAnError() {
        assertThrows(IOException.class, () -> fingerprint("no-route", Map.of()));
    }

    @Test
    void linkLocalOnlyWhenNothingElseAndAllowed() throws Exception {
        assertEquals(Map.of("unique.network.ip-address", "fe80::1"),
                fingerprint("vm", Map.of("network_interface", "wg0")));
        assertEquals(Map.of(), fingerprint("vm",
                Map.of("network_interface", "wg0", "fingerprint.network.disallow_link_local", "true")));
    }

    @Test
    void ipv6IsPrintedAsGoPrintsIt() {
        assertEquals("fd00::2", NetworkFingerprinter.format(ip("fd00:0:0:0:0:0:0:2")));
        assertEquals("::1", NetworkFingerprinter.format(ip("::1")));
        assertEquals("2001:db8::1:0:0:1", NetworkFingerprinter.format(ip("2001:db8:0:0:1:0:0:1")));
        assertEquals("2001:db8:0:1:1:1:1:1", NetworkFingerprinter.format(ip("2001:db8:0:1:1:1:1:1")));
        assertEquals("fe80::fc:ff:fe00:1", NetworkFingerprinter.format(ip("fe80::fc:ff:fe00:1%1")));
        assertEquals("::", NetworkFingerprinter.format(ip("::")));
    }

    @Test
    void realMachine() throws Exception {
        assumeTrue(System.getProperty("os.name").equals("Linux"));
        NetworkFingerprinter network = new NetworkFingerprinter();
        assumeTrue(network.defaultRouteInterface().isPresent(), "no default route");

        Map<String, String> attributes = network.fingerprint(options(Map.of())).attributes();

        String ip = attributes.get("unique.network.ip-address");
        assertTrue(ip != null && !ip.isBlank(), attributes.toString());
        assertTrue(InetAddress.getByName(ip) != null);
    }
}
