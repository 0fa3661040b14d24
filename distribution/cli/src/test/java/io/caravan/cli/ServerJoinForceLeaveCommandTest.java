package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ServerJoinForceLeaveCommandTest extends FakeAgentTest {
    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "CARAVAN_TOKEN", "secret");
    }

    @Test
    void joinSendsEveryAddressAndReportsTheCount() {
        agent.json("/v1/agent/join", "{\"num_joined\":2,\"error\":\"\"}");

        Cli.Result r = Cli.run(env, "server", "join", "10.0.0.2:4648", "10.0.0.3");

        assertEquals(0, r.code(), r.err());
        assertEquals("Joined 2 servers successfully\n", r.out());
        assertEquals("", r.err());
        FakeAgent.Request put = agent.last("/v1/agent/join");
        assertEquals("PUT", put.method());
        assertEquals("address=10.0.0.2%3A4648&address=10.0.0.3", put.query());
        assertEquals("secret", put.token());
        assertEquals("", put.body());
    }

    @Test
    void joinErrorFromTheAgentExitsOne() {
        agent.json("/v1/agent/join", "{\"num_joined\":0,\"error\":\"dial tcp 10.0.0.9:4648: connection refused\"}");

        Cli.Result r = Cli.run(env, "server", "join", "10.0.0.9");

        assertEquals(1, r.code());
        assertEquals("", r.out());
        assertEquals(List.of("Error joining: failed joining: dial tcp 10.0.0.9:4648: connection refused"),
                r.errLines());
    }

    @Test
    void joiningNoServerExitsOneEvenWithoutAnError() {
        agent.json("/v1/agent/join", "{\"num_joined\":0,\"error\":\"\"}");

        Cli.Result r = Cli.run(env, "server", "join", "10.0.0.9");

        assertEquals(1, r.code());
        assertEquals("", r.out());
        assertEquals(List.of("Error joining: failed joining: no server could be joined"), r.errLines());
    }

    @Test
    void joinRefusedByTheAgentIsOneLine() {
        agent.reply("/v1/agent/join", 403, "Permission denied");

        Cli.Result r = Cli.run(env, "server", "join", "10.0.0.9");

        assertEquals(1, r.code());
        assertEquals(List.of("Error joining: failed joining: Unexpected response code: 403 (Permission denied)"),
                r.errLines());
    }

    @Test
    void joinWithoutAddressIsAUsageError() {
        Cli.Result r = Cli.run(env, "server", "join");

        assertEquals(1, r.code());
        assertEquals("One or more node addresses must be given as arguments\n"
                + "For additional help try 'caravan server join -h'\n", r.err());
        assertEquals(List.of(), agent.requests());
    }

    @Test
    void forceLeavePutsTheNodeAndPrintsNothing() {
        agent.json("/v1/agent/force-leave", "");

        Cli.Result r = Cli.run(env, "server", "force-leave", "node2.global");

        assertEquals(0, r.code(), r.err());
        assertEquals("", r.out());
        assertEquals("", r.err());
        FakeAgent.Request put = agent.last("/v1/agent/force-leave");
        assertEquals("PUT", put.method());
        assertEquals("node=node2.global", put.query());
        assertEquals("secret", put.token());
    }

    @Test
    void forceLeavePruneAddsTheFlag() {
        agent.json("/v1/agent/force-leave", "");

        Cli.Result r = Cli.run(env, "server", "force-leave", "-prune", "node2.global");

        assertEquals(0, r.code(), r.err());
        assertEquals("node=node2.global&prune=true", agent.last("/v1/agent/force-leave").query());
    }

    @Test
    void forceLeaveRefusedIsOneLineWithTheNode() {
        agent.reply("/v1/agent/force-leave", 500, "agent: No node found with name 'ghost'\n");

        Cli.Result r = Cli.run(env, "server", "force-leave", "ghost");

        assertEquals(1, r.code());
        assertEquals(List.of("Error force-leaving server ghost: Unexpected response code: 500 "
                + "(agent: No node found with name 'ghost')"), r.errLines());
        assertFalse(r.err().contains("Exception"), r.err());
    }

    @Test
    void forceLeaveTakesExactlyOneNode() {
        for (String[] args : List.of(new String[] {"server", "force-leave"},
                new String[] {"server", "force-leave", "a", "b"})) {
            Cli.Result r = Cli.run(env, args);
            assertEquals(1, r.code());
            assertEquals("This command takes one argument: <node>\n"
                    + "For additional help try 'caravan server force-leave -h'\n", r.err());
        }
        assertEquals(List.of(), agent.requests());
    }

    @Test
    void unknownFlagIsAUsageError() {
        Cli.Result r = Cli.run(env, "server", "force-leave", "-purge", "node2");

        assertEquals(1, r.code());
        assertTrue(r.err().startsWith("Unknown option: '-purge'"), r.err());
        assertTrue(r.err().contains("Usage: caravan server force-leave"), r.err());
        assertEquals(List.of(), agent.requests());
    }

    @Test
    void helpDescribesTheCommandsAndTheServerGroupListsThem() {
        Cli.Result join = Cli.run(env, "server", "join", "-h");
        assertEquals(0, join.code());
        assertTrue(join.out().startsWith("Usage: caravan server join"), join.out());
        assertTrue(join.out().contains("<addr>"), join.out());

        Cli.Result leave = Cli.run(env, "server", "force-leave", "-help");
        assertEquals(0, leave.code());
        assertTrue(leave.out().contains("-prune"), leave.out());

        Cli.Result group = Cli.run(env, "server", "-h");
        assertEquals(0, group.code());
        for (String name : List.of("force-leave", "join", "members")) {
            assertTrue(group.out().contains("  " + name + " "), name + " missing from:\n" + group.out());
        }
    }
}
