package io.caravan.membership.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.osgi.framework.BundleContext;

import io.caravan.api.timer.SharedTimers;
import io.caravan.plugin.api.discover.DiscoverProvider;
import io.caravan.plugin.api.discover.Discoverer;

class MembershipComponentTest {
    /** The agent's shared timer, as the components get it (gossip rounds run there). */
    private static final SharedTimers TIMERS = new SharedTimers();


    /** A config proxy: DS-style, names with {@code _} looked up as {@code .} keys, defaults otherwise. */
    static ServerPidConfig config(Map<String, Object> values) {
        return (ServerPidConfig) Proxy.newProxyInstance(ServerPidConfig.class.getClassLoader(),
                new Class<?>[] {ServerPidConfig.class}, (proxy, method, args) -> {
                    Object v = values.get(method.getName().replace('_', '.'));
                    return v != null ? v : method.getDefaultValue();
                });
    }

    @Test
    void tagsFromTheServerPid() {
        Map<String, Object> v = new HashMap<>();
        v.put("name", "s1");
        v.put("region", "eu");
        v.put("datacenter", "dc2");
        v.put("node.id", "abc");
        v.put("version", "0.1.0");
        v.put("serf.bind", "127.0.0.1:0");
        v.put("rpc.advertise", "10.0.0.5:4647");
        v.put("raft.addr", "10.0.0.5:4647");
        v.put("bootstrap.expect", 1L);
        GossipSettings s = MembershipComponent.settings(config(v));
        assertEquals("s1.eu", s.name());
        assertEquals(Map.ofEntries(Map.entry("role", "nomad"), Map.entry("region", "eu"), Map.entry("dc", "dc2"),
                Map.entry("build", "0.1.0"), Map.entry("id", "abc"), Map.entry("rpc_addr", "10.0.0.5"),
                Map.entry("port", "4647"), Map.entry("raft_addr", "10.0.0.5:4647"), Map.entry("expect", "1"),
                Map.entry("bootstrap", "1"), Map.entry("vsn", "1"), Map.entry("raft_vsn", "3")), s.tags());

        v.put("bootstrap.expect", 3L);
        assertEquals("3", MembershipComponent.settings(config(v)).tags().get("expect"));
        assertFalse(MembershipComponent.settings(config(v)).tags().containsKey("bootstrap"));

        v.remove("name");
        assertThrows(IllegalArgumentException.class, () -> MembershipComponent.settings(config(v)));
    }

    @Test
    void withoutSerfBindNothingStarts() throws Exception {
        BundleContext none = (BundleContext) Proxy.newProxyInstance(BundleContext.class.getClassLoader(),
                new Class<?>[] {BundleContext.class}, (p, m, a) -> {
                    throw new AssertionError("must not register: " + m.getName());
                });
        MembershipComponent c = new MembershipComponent(config(Map.of("name", "s1")), none, TIMERS);
        c.deactivate();
    }

    @Test
    void retryJoinEntriesResolveThroughDiscoverers() throws Exception {
        Map<String, Object> v = new HashMap<>(Map.of("name", "s1", "serf.bind", "127.0.0.1:0"));
        BundleContext ctx = (BundleContext) Proxy.newProxyInstance(BundleContext.class.getClassLoader(),
                new Class<?>[] {BundleContext.class}, (p, m, a) -> null);
        MembershipComponent c = new MembershipComponent(config(v), ctx, TIMERS);
        try {
            Discoverer fake = args -> List.of(args.get("name") + ":" + args.get("port"));
            c.addDiscoverer(fake, Map.of(DiscoverProvider.PROPERTY, "fake"));
            assertEquals(List.of("10.0.0.1", "servers.example:4648", "other.example:5648"),
                    c.resolve(List.of("10.0.0.1", "provider=fake name=servers.example", "provider=missing x=1",
                            "provider=fake name=other.example port=5648")),
                    "found hosts take the serf port unless the string names one");
            c.removeDiscoverer(fake);
            assertEquals(List.of(), c.resolve(List.of("provider=fake name=x")));
            assertEquals("s1.global", c.self().name());
            assertNull(c.self().tag("raft_addr"));
        } finally {
            c.deactivate();
        }
    }

    @Test
    void theFirstRetryJoinAttemptWaitsForAProviderThatRegistersLate() throws Exception {
        BundleContext ctx = (BundleContext) Proxy.newProxyInstance(BundleContext.class.getClassLoader(),
                new Class<?>[] {BundleContext.class}, (p, m, a) -> null);
        MembershipComponent target = new MembershipComponent(config(Map.of("name", "t", "serf.bind", "127.0.0.1:0")),
                ctx, TIMERS);
        // A retry interval far longer than the test: only a first attempt that finds the provider can join.
        MembershipComponent joiner = new MembershipComponent(config(Map.of("name", "j", "serf.bind", "127.0.0.1:0",
                "retry.join", new String[] {"provider=late name=x"}, "retry.interval.ms", 600_000L)), ctx, TIMERS);
        try {
            Thread.sleep(300);   // as when the provider's bundle starts after membership's first attempt began
            Discoverer late = args -> List.of(target.self().address());
            joiner.addDiscoverer(late, Map.of(DiscoverProvider.PROPERTY, "late"));
            long deadline = System.nanoTime() + MembershipComponent.PROVIDER_WAIT.toNanos();
            while (joiner.members().size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(2, joiner.members().size(), "joined on the first attempt: " + joiner.members());
            assertTrue(target.members().stream().anyMatch(m -> m.name().equals("j.global")));
        } finally {
            joiner.deactivate();
            target.deactivate();
        }
    }
}
