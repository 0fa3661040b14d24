package io.caravan.discover.dns.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.caravan.plugin.api.discover.DiscoverString;

class DnsDiscovererTest {

    private final DnsDiscoverer dns = new DnsDiscoverer();

    @Test
    void localhostResolvesToLoopbackWithTheDefaultPort() throws Exception {
        List<String> addresses = dns.addresses(Map.of("name", "localhost"));

        assertFalse(addresses.isEmpty());
        assertTrue(addresses.stream().allMatch(a -> a.equals("127.0.0.1:4647") || a.equals("[0:0:0:0:0:0:0:1]:4647")
                || a.matches("127\\.\\d+\\.\\d+\\.\\d+:4647")), addresses.toString());
    }

    @Test
    void aParsedDiscoverStringWithPortAndLowerCaseType() throws Exception {
        DiscoverString d = DiscoverString.parse("provider=dns name=localhost port=4648 type=a").orElseThrow();

        List<String> addresses = dns.addresses(d.args());

        assertFalse(addresses.isEmpty());
        assertTrue(addresses.stream().allMatch(a -> a.endsWith(":4648")), addresses.toString());
    }

    @Test
    void ipLiteralsNeedNoLookup() throws Exception {
        assertEquals(List.of("10.1.2.3:4647"), dns.addresses(Map.of("name", "10.1.2.3")));
        assertEquals(List.of("[2001:db8:0:0:0:0:0:1]:80"), dns.addresses(Map.of("name", "2001:db8::1", "port", "80")));
    }

    @Test
    void nameIsRequired() {
        assertThrows(IllegalArgumentException.class, () -> dns.addresses(Map.of()));
        assertThrows(IllegalArgumentException.class, () -> dns.addresses(Map.of("name", " ")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "65536", "x", "-1"})
    void badPortsAreRejected(String port) {
        assertThrows(IllegalArgumentException.class, () -> dns.addresses(Map.of("name", "localhost", "port", port)));
    }

    @Test
    void unknownTypeIsRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> dns.addresses(Map.of("name", "localhost", "type", "MX")));
        assertTrue(e.getMessage().contains("A or SRV"), e.getMessage());
    }

    @Test
    void srvRecordsBecomeTargetAndPortInPriorityThenWeightOrder() {
        List<String> records = List.of(
                "20 0 4647 backup.example.com.",
                "10 5 4647 light.example.com.",
                "10 60 5647 heavy.example.com.",
                "10 5 4647 light.example.com.");

        assertEquals(List.of("heavy.example.com:5647", "light.example.com:4647", "backup.example.com:4647"),
                DnsDiscoverer.srvAddresses(records));
    }

    @Test
    void srvDotTargetMeansNoService() {
        assertEquals(List.of(), DnsDiscoverer.srvAddresses(List.of("0 0 0 .")));
    }

    @Test
    void srvRecordTextIsParsed() {
        assertEquals(new SrvRecord(1, 2, 4647, "nomad-1.service.consul"),
                SrvRecord.parse("  1 2 4647 nomad-1.service.consul.  "));
        assertEquals(new SrvRecord(0, 0, 80, "no-dot.example"), SrvRecord.parse("0 0 80 no-dot.example"));
        assertEquals("[2001:db8::1]:4647", new SrvRecord(0, 0, 4647, "2001:db8::1").address());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1 2 3", "1 2 3 a b", "x 2 3 a.", "1 2 70000 a.", "-1 0 1 a."})
    void malformedSrvRecordsAreRejected(String text) {
        assertThrows(IllegalArgumentException.class, () -> SrvRecord.parse(text));
    }
}
