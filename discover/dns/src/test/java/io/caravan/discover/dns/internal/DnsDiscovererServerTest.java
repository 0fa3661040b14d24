package io.caravan.discover.dns.internal;

import static io.caravan.discover.dns.internal.FakeDnsServer.A;
import static io.caravan.discover.dns.internal.FakeDnsServer.AAAA;
import static io.caravan.discover.dns.internal.FakeDnsServer.SRV;
import static io.caravan.discover.dns.internal.FakeDnsServer.ip;
import static io.caravan.discover.dns.internal.FakeDnsServer.srv;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.caravan.plugin.api.discover.DiscoverString;

/** The JNDI path end to end, against {@link FakeDnsServer} on loopback (no real DNS). */
class DnsDiscovererServerTest {

    private FakeDnsServer server;
    private final DnsDiscoverer dns = new DnsDiscoverer();

    @BeforeEach
    void start() throws Exception {
        server = new FakeDnsServer(Map.of(
                "_nomad-rpc._tcp.cluster.test", Map.of(SRV, List.of(
                        srv(20, 0, 4647, "backup.cluster.test"),
                        srv(10, 10, 5647, "nomad-1.cluster.test"),
                        srv(10, 50, 4647, "nomad-2.cluster.test"))),
                "servers.cluster.test", Map.of(
                        A, List.of(ip("10.0.0.1"), ip("10.0.0.2")),
                        AAAA, List.of(ip("2001:db8::1"))),
                "empty.cluster.test", Map.of()));
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void srvRecordsFromTheGivenServer() throws Exception {
        DiscoverString d = DiscoverString.parse("provider=dns type=SRV name=_nomad-rpc._tcp.cluster.test server="
                + server.address()).orElseThrow();

        assertEquals(List.of("nomad-2.cluster.test:4647", "nomad-1.cluster.test:5647", "backup.cluster.test:4647"),
                dns.addresses(d.args()));
    }

    @Test
    void aAndAaaaRecordsFromTheGivenServerTakeThePort() throws Exception {
        assertEquals(List.of("10.0.0.1:4648", "10.0.0.2:4648", "[2001:db8:0:0:0:0:0:1]:4648"),
                dns.addresses(Map.of("name", "servers.cluster.test", "port", "4648", "server", server.address())));
    }

    @Test
    void unknownNamesAndMissingRecordsGiveNoAddresses() throws Exception {
        assertEquals(List.of(), dns.addresses(Map.of("name", "nowhere.cluster.test", "type", "srv",
                "server", server.address())));
        assertEquals(List.of(), dns.addresses(Map.of("name", "empty.cluster.test", "type", "SRV",
                "server", server.address())));
        assertEquals(List.of(), dns.addresses(Map.of("name", "nowhere.cluster.test", "server", server.address())));
    }
}
