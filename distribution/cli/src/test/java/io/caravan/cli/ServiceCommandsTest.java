package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** {@code service list|info|delete} as Nomad prints them. */
class ServiceCommandsTest extends FakeAgentTest {
    private static final String REGS = """
            [{"ID":"_nomad-task-1b2c3d4e-aaaa-bbbb-cccc-000000000000-server-web-http","ServiceName":"web",
              "Namespace":"default","NodeID":"9f8e7d6c-1111-2222-3333-444444444444","Datacenter":"dc1","JobID":"web",
              "AllocID":"1b2c3d4e-aaaa-bbbb-cccc-000000000000","Tags":["v1","http"],"Address":"127.0.0.1",
              "Port":23456,"CreateIndex":10,"ModifyIndex":10}]""";

    private Map<String, String> env() {
        return Map.of("CARAVAN_ADDR", agent.address());
    }

    private static String trimmed(String out) {
        return out.lines().map(String::stripTrailing).reduce("", (a, b) -> a + b + "\n");
    }

    @Test
    void listShowsNamesAndTags() throws Exception {
        agent.json("/v1/services", "[{\"Namespace\":\"default\",\"Services\":[{\"ServiceName\":\"web\","
                + "\"Tags\":[\"http\",\"v1\"]},{\"ServiceName\":\"db\",\"Tags\":[]}]}]");
        Cli.Result r = Cli.run(env(), "service", "list");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                Service Name  Tags
                web           [http,v1]
                db            []
                """, trimmed(r.out()));
        Cli.Result all = Cli.run(env(), "service", "list", "-namespace", "*");
        assertTrue(all.out().startsWith("Service Name  Namespace  Tags"), all.out());
        assertTrue(agent.last("/v1/services").query().contains("namespace=*")
                || agent.last("/v1/services").query().contains("namespace=%2A"), agent.last("/v1/services").query());

        agent.json("/v1/services", "[]");
        assertEquals("No service registrations found\n", Cli.run(env(), "service", "list").out());
    }

    @Test
    void infoShowsEachInstanceAndChoosePassesThrough() throws Exception {
        agent.json("/v1/service/web", REGS);
        Cli.Result r = Cli.run(env(), "service", "info", "-choose", "1|me", "web");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                Job ID  Address          Tags       Node ID   Alloc ID
                web     127.0.0.1:23456  [v1,http]  9f8e7d6c  1b2c3d4e
                """, trimmed(r.out()));
        assertTrue(agent.last("/v1/service/web").query().contains("choose=1%7Cme"),
                agent.last("/v1/service/web").query());
        Cli.Result verbose = Cli.run(env(), "service", "info", "-verbose", "web");
        assertTrue(verbose.out().contains("Alloc ID") && verbose.out().contains("1b2c3d4e-aaaa-bbbb-cccc-000000000000"),
                verbose.out());

        agent.json("/v1/service/none", "[]");
        Cli.Result none = Cli.run(env(), "service", "info", "none");
        assertEquals(1, none.code());
        assertEquals("No service registrations with name \"none\" found\n", none.err());
    }

    @Test
    void deleteRemovesOneRegistration() throws Exception {
        agent.json("/v1/service/web/abc", "{}");
        Cli.Result r = Cli.run(env(), "service", "delete", "web", "abc");
        assertEquals(0, r.code(), r.err());
        assertEquals("Successfully deleted service registration\n", r.out());
        assertEquals("DELETE", agent.last("/v1/service/web/abc").method());
        assertEquals(1, Cli.run(env(), "service", "delete", "web").code());
    }
}
