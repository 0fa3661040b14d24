package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NodeConfigCommandTest extends FakeAgentTest {
    private static final String SERVERS = "/v1/agent/servers";

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "CARAVAN_TOKEN", "secret");
    }

    @Test
    void serversPrintsOnePerLine() {
        agent.json(SERVERS, "[\"10.0.0.1:4647\",\"10.0.0.2:4647\"]");

        Cli.Result r = Cli.run(env, "node", "config", "-servers");

        assertEquals(0, r.code(), r.err());
        assertEquals("10.0.0.1:4647\n10.0.0.2:4647\n", r.out());
        FakeAgent.Request get = agent.last(SERVERS);
        assertEquals("GET", get.method());
        assertNull(get.query());
        assertEquals("secret", get.token());
    }

    @Test
    void noServersPrintsNothing() {
        agent.json(SERVERS, "[]");

        Cli.Result r = Cli.run(env, "node", "config", "-servers");

        assertEquals(0, r.code(), r.err());
        assertEquals("", r.out());
    }

    @Test
    void serversOfAServerOnlyAgentIsOneLine() {
        agent.reply(SERVERS, 500, "client not running");

        Cli.Result r = Cli.run(env, "node", "config", "-servers");

        assertEquals(1, r.code());
        assertEquals(List.of("Error querying server list: Unexpected response code: 500 (client not running)"),
                r.errLines());
    }

    @Test
    void updateServersPutsEveryAddress() {
        agent.json(SERVERS, "");

        Cli.Result r = Cli.run(env, "node", "config", "-update-servers", "10.0.0.1:4647", "server2");

        assertEquals(0, r.code(), r.err());
        assertEquals("Updated server list\n", r.out());
        FakeAgent.Request put = agent.last(SERVERS);
        assertEquals("PUT", put.method());
        assertEquals("address=10.0.0.1%3A4647&address=server2", put.query());
        assertEquals("secret", put.token());
    }

    @Test
    void updateServersRefusedIsOneLine() {
        agent.reply(SERVERS, 400, "missing server addresses");

        Cli.Result r = Cli.run(env, "node", "config", "-update-servers", "nowhere");

        assertEquals(1, r.code());
        assertEquals("", r.out());
        assertEquals(List.of("Error updating server list: Unexpected response code: 400 (missing server addresses)"),
                r.errLines());
    }

    @Test
    void exactlyOneFlagAndAddressesOnlyForUpdate() {
        String hint = "For additional help try 'caravan node config -h'\n";
        Cli.Result none = Cli.run(env, "node", "config");
        assertEquals(1, none.code());
        assertEquals("Exactly one of the '-servers' or '-update-servers' flags must be set\n" + hint, none.err());

        Cli.Result both = Cli.run(env, "node", "config", "-servers", "-update-servers", "a");
        assertEquals(1, both.code());
        assertEquals("Exactly one of the '-servers' or '-update-servers' flags must be set\n" + hint, both.err());

        Cli.Result empty = Cli.run(env, "node", "config", "-update-servers");
        assertEquals(1, empty.code());
        assertEquals("One or more server addresses must be given with -update-servers\n" + hint, empty.err());

        Cli.Result extra = Cli.run(env, "node", "config", "-servers", "a");
        assertEquals(1, extra.code());
        assertEquals("-servers takes no arguments\n" + hint, extra.err());

        assertEquals(List.of(), agent.requests());
    }

    @Test
    void unknownFlagIsAUsageError() {
        Cli.Result r = Cli.run(env, "node", "config", "-server");

        assertEquals(1, r.code());
        assertTrue(r.err().startsWith("Unknown option: '-server'"), r.err());
        assertTrue(r.err().contains("Usage: caravan node config"), r.err());
    }

    @Test
    void helpListsBothFlagsAndTheNodeGroupListsConfig() {
        Cli.Result r = Cli.run(env, "node", "config", "-h");
        assertEquals(0, r.code());
        assertTrue(r.out().startsWith("Usage: caravan node config"), r.out());
        assertTrue(r.out().contains("-servers"), r.out());
        assertTrue(r.out().contains("-update-servers"), r.out());

        Cli.Result group = Cli.run(env, "node", "-h");
        assertTrue(group.out().contains("  config "), group.out());
    }
}
