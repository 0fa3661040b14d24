package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OperatorRaftCommandTest extends FakeAgentTest {
    private static final String CONFIGURATION = "/v1/operator/raft/configuration";
    private static final String PEER = "/v1/operator/raft/peer";
    // Listed out of order: the table is sorted by node name.
    private static final String PEERS = """
            {"Index":42,"Servers":[
              {"ID":"d7927f2b-067f-45a4-6266-af8bb84de082","Node":"server2.global","Address":"10.1.0.20:4647",
               "Leader":true,"Voter":true,"RaftProtocol":"3"},
              {"ID":"c13f9998-a0f3-d765-0b52-55a0b3ce5f88","Node":"server1.global","Address":"10.1.0.10:4647",
               "Leader":false,"Voter":true,"RaftProtocol":"3"},
              {"ID":"00d56ef8-938e-abc3-6f8a-f8ac80a80fb9","Node":"server3.global","Address":"10.1.0.30:4647",
               "Leader":false,"Voter":false,"RaftProtocol":"3"}
            ]}""";

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "CARAVAN_TOKEN", "mgmt");
        agent.json(CONFIGURATION, PEERS);
    }

    @Test
    void listPeersPrintsNomadsTableSortedByNode() {
        Cli.Result r = Cli.run(env, "operator", "raft", "list-peers");

        assertEquals(0, r.code(), r.err());
        assertEquals(List.of(
                "Node            ID                                    Address         State     Voter  RaftProtocol",
                "server1.global  c13f9998-a0f3-d765-0b52-55a0b3ce5f88  10.1.0.10:4647  follower  true   3",
                "server2.global  d7927f2b-067f-45a4-6266-af8bb84de082  10.1.0.20:4647  leader    true   3",
                "server3.global  00d56ef8-938e-abc3-6f8a-f8ac80a80fb9  10.1.0.30:4647  follower  false  3"),
                r.outLines());
        assertEquals("", r.err());
        FakeAgent.Request get = agent.last(CONFIGURATION);
        assertEquals("GET", get.method());
        assertNull(get.query(), "not stale unless asked");
        assertEquals("mgmt", get.token());
    }

    @Test
    void listPeersStaleAsksAnyServer() {
        assertEquals(0, Cli.run(env, "operator", "raft", "list-peers", "-stale").code());
        assertEquals("stale=true", agent.last(CONFIGURATION).query());

        assertEquals(0, Cli.run(env, "operator", "raft", "list-peers", "-stale=false").code());
        assertNull(agent.last(CONFIGURATION).query());
    }

    @Test
    void listPeersAcceptsANumericRaftProtocol() {
        agent.json(CONFIGURATION, "{\"Index\":1,\"Servers\":[{\"ID\":\"127.0.0.1:4647\",\"Node\":\"solo.global\","
                + "\"Address\":\"127.0.0.1:4647\",\"Leader\":true,\"Voter\":true,\"RaftProtocol\":2}]}");

        Cli.Result r = Cli.run(env, "operator", "raft", "list-peers");

        assertEquals(0, r.code(), r.err());
        assertEquals("solo.global  127.0.0.1:4647  127.0.0.1:4647  leader  true   2", r.outLines().get(1));
    }

    @Test
    void listPeersErrorIsOneLine() {
        agent.reply(CONFIGURATION, 500, "No cluster leader");

        Cli.Result r = Cli.run(env, "operator", "raft", "list-peers");

        assertEquals(1, r.code());
        assertEquals("", r.out());
        assertEquals(List.of("Failed to retrieve raft configuration: Unexpected response code: 500 "
                + "(No cluster leader)"), r.errLines());
    }

    @Test
    void removePeerById() {
        agent.json(PEER, "");

        Cli.Result r = Cli.run(env, "operator", "raft", "remove-peer", "-peer-id=d7927f2b-067f-45a4-6266-af8bb84de082");

        assertEquals(0, r.code(), r.err());
        assertEquals("Removed peer with id \"d7927f2b-067f-45a4-6266-af8bb84de082\"\n", r.out());
        FakeAgent.Request delete = agent.last(PEER);
        assertEquals("DELETE", delete.method());
        assertEquals("id=d7927f2b-067f-45a4-6266-af8bb84de082", delete.query());
        assertEquals("mgmt", delete.token());
    }

    @Test
    void removePeerByAddress() {
        agent.json(PEER, "");

        Cli.Result r = Cli.run(env, "operator", "raft", "remove-peer", "-peer-address", "10.1.0.30:4647");

        assertEquals(0, r.code(), r.err());
        assertEquals("Removed peer with address \"10.1.0.30:4647\"\n", r.out());
        FakeAgent.Request delete = agent.last(PEER);
        assertEquals("DELETE", delete.method());
        assertEquals("address=10.1.0.30%3A4647", delete.query());
    }

    @Test
    void removePeerNeedsExactlyOneOfIdAndAddress() {
        Cli.Result none = Cli.run(env, "operator", "raft", "remove-peer");
        assertEquals(1, none.code());
        assertEquals("Error removing peer: an address or id is required for the peer to remove\n", none.err());

        Cli.Result both = Cli.run(env, "operator", "raft", "remove-peer", "-peer-id=x", "-peer-address=1.2.3.4:4647");
        assertEquals(1, both.code());
        assertEquals("Error removing peer: cannot give both an address and id\n", both.err());
        assertEquals(List.of(), agent.requests());
    }

    @Test
    void removePeerRefusedIsOneLine() {
        agent.reply(PEER, 500, "id \"nope\" was not found in the Raft configuration");

        Cli.Result r = Cli.run(env, "operator", "raft", "remove-peer", "-peer-id", "nope");

        assertEquals(1, r.code());
        assertEquals("", r.out());
        assertEquals(List.of("Error removing peer: Unexpected response code: 500 "
                + "(id \"nope\" was not found in the Raft configuration)"), r.errLines());
    }

    @Test
    void unknownFlagAndMissingValueAreUsageErrors() {
        Cli.Result unknown = Cli.run(env, "operator", "raft", "remove-peer", "-peer=x");
        assertEquals(1, unknown.code());
        assertTrue(unknown.err().startsWith("Unknown option: '-peer=x'"), unknown.err());
        assertTrue(unknown.err().contains("Usage: caravan operator raft remove-peer"), unknown.err());

        Cli.Result missing = Cli.run(env, "operator", "raft", "remove-peer", "-peer-id");
        assertEquals(1, missing.code());
        assertTrue(missing.err().startsWith("Missing required parameter for option '--peer-id'"), missing.err());
        assertEquals(List.of(), agent.requests());
    }

    @Test
    void raftGroupAloneFailsWithUsageAndListsItsCommands() {
        Cli.Result r = Cli.run(env, "operator", "raft");
        assertEquals(1, r.code());
        assertTrue(r.err().contains("list-peers"), r.err());
        assertTrue(r.err().contains("remove-peer"), r.err());

        Cli.Result operator = Cli.run(env, "operator", "-h");
        assertEquals(0, operator.code());
        assertTrue(operator.out().contains("  raft "), operator.out());

        Cli.Result help = Cli.run(env, "operator", "raft", "list-peers", "-h");
        assertEquals(0, help.code());
        assertTrue(help.out().startsWith("Usage: caravan operator raft list-peers"), help.out());
        assertTrue(help.out().contains("-stale"), help.out());
    }
}
