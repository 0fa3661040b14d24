package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ServerMembersCommandTest {
    // node2 is listed first and is the leader: rows must be sorted by name and the leader found by rpc_addr:port.
    private static final String MEMBERS = """
            {"ServerName":"node1","ServerRegion":"global","ServerDC":"dc1","Members":[
              {"Name":"node2.global","Addr":"10.0.0.2","Port":4648,
               "Tags":{"role":"nomad","region":"global","dc":"dc2","build":"0.1.0","port":"4647",
                       "rpc_addr":"10.0.0.2","id":"bbbb","raft_vsn":"3","bootstrap":"0","expect":"3"},
               "Status":"alive","ProtocolMin":1,"ProtocolMax":5,"ProtocolCur":2,"DelegateMin":2,"DelegateMax":5,"DelegateCur":4},
              {"Name":"node1.global","Addr":"127.0.0.1","Port":4648,
               "Tags":{"role":"nomad","region":"global","dc":"dc1","build":"0.1.0","port":"4647",
                       "rpc_addr":"127.0.0.1","id":"aaaa","raft_vsn":"3","bootstrap":"1","expect":"3"},
               "Status":"alive","ProtocolMin":1,"ProtocolMax":5,"ProtocolCur":2,"DelegateMin":2,"DelegateMax":5,"DelegateCur":4}
            ]}
            """;

    private FakeAgent agent;
    private Map<String, String> env;

    @BeforeEach
    void start() throws Exception {
        agent = new FakeAgent()
                .json("/v1/agent/members", MEMBERS)
                .json("/v1/status/leader", "\"10.0.0.2:4647\"");
        env = Map.of("CARAVAN_ADDR", agent.address());
    }

    @AfterEach
    void stop() {
        agent.close();
    }

    @Test
    void tableIsSortedByNameWithTheLeaderMarked() {
        Cli.Result r = Cli.run(env, "server", "members");

        assertEquals(0, r.code(), r.err());
        assertEquals(List.of(
                "Name          Address    Port  Status  Leader  Raft Version  Build  Datacenter  Region",
                "node1.global  127.0.0.1  4648  alive   false   3             0.1.0  dc1         global",
                "node2.global  10.0.0.2   4648  alive   true    3             0.1.0  dc2         global"),
                r.outLines());
        assertEquals("", r.err());
        assertEquals("region=global", agent.last("/v1/status/leader").query(), "leader asked per region");
    }

    @Test
    void noLeaderMeansNoRowIsLeader() {
        agent.json("/v1/status/leader", "\"\"");

        Cli.Result r = Cli.run(env, "server", "members");

        assertEquals(0, r.code(), r.err());
        assertTrue(r.outLines().stream().skip(1).allMatch(l -> l.contains(" alive   false ")), r.out());
    }

    @Test
    void leaderThatCannotBeReadIsReportedButTheTableStillPrints() {
        agent.reply("/v1/status/leader", 500, "No cluster leader");

        Cli.Result r = Cli.run(env, "server", "members");

        assertEquals(0, r.code());
        assertEquals(3, r.outLines().size(), r.out());
        assertEquals(List.of("Error determining leaders: Region \"global\": "
                + "Unexpected response code: 500 (No cluster leader)"), r.errLines());
    }

    @Test
    void detailedPrintsSortedTags() {
        Cli.Result r = Cli.run(env, "server", "members", "-detailed");

        assertEquals(0, r.code(), r.err());
        assertEquals(List.of(
                "Name          Address    Port  Tags",
                "node1.global  127.0.0.1  4648  bootstrap=1,build=0.1.0,dc=dc1,expect=3,id=aaaa,port=4647,"
                        + "raft_vsn=3,region=global,role=nomad,rpc_addr=127.0.0.1",
                "node2.global  10.0.0.2   4648  bootstrap=0,build=0.1.0,dc=dc2,expect=3,id=bbbb,port=4647,"
                        + "raft_vsn=3,region=global,role=nomad,rpc_addr=10.0.0.2"),
                r.outLines());
    }

    @Test
    void jsonPrintsTheMembersArray() throws Exception {
        Cli.Result r = Cli.run(env, "server", "members", "-json");

        assertEquals(0, r.code(), r.err());
        JsonNode printed = new ObjectMapper().readTree(r.out());
        assertTrue(printed.isArray());
        assertEquals("node1.global", printed.get(0).get("Name").asText());
        assertEquals("node2.global", printed.get(1).get("Name").asText());
        assertEquals(4, printed.get(1).get("DelegateCur").asInt());
        assertTrue(r.out().startsWith("[\n    {\n        \"Name\": \"node1.global\","), r.out());
    }

    @Test
    void membersErrorUsesNomadsWording() {
        agent.reply("/v1/agent/members", 403, "Permission denied");

        Cli.Result r = Cli.run(env, "server", "members");

        assertEquals(1, r.code());
        assertEquals(List.of("Error querying servers: Unexpected response code: 403 (Permission denied)"),
                r.errLines());
    }
}
