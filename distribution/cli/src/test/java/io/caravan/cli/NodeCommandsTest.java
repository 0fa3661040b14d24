package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NodeCommandsTest extends FakeAgentTest {
    static final String NODE_ID = "171a583b-aaaa-bbbb-cccc-dddddddddddd";
    private static final String NODE = """
            {"ID":"%s","Name":"vm","NodePool":"default","NodeClass":"","Datacenter":"dc1","Drain":true,
             "DrainStrategy":{"Deadline":3600000000000,"IgnoreSystemJobs":true,"ForceDeadline":"2024-01-02T16:04:05Z",
               "StartedAt":"2024-01-02T15:04:05Z"},
             "SchedulingEligibility":"ineligible","Status":"ready",
             "Drivers":{"raw_exec":{"Detected":true,"Healthy":true,"HealthDescription":"Healthy",
                 "UpdateTime":"2024-01-02T15:04:05.5Z"},
               "exec":{"Detected":true,"Healthy":false,"HealthDescription":"no cgroups"},"docker":{"Detected":false}},
             "Events":[{"Message":"Node registered","Subsystem":"Cluster","Timestamp":"2024-01-02T15:00:00Z",
                 "Details":null},
               {"Message":"Node drain strategy set","Subsystem":"Drain","Timestamp":"2024-01-02T15:04:05Z",
                 "Details":{"by":"ops"}}],
             "NodeResources":{"Cpu":{"CpuShares":4000},"Memory":{"MemoryMB":8192},"Disk":{"DiskMB":102400}},
             "ReservedResources":{"Cpu":{"CpuShares":100},"Memory":{"MemoryMB":0},"Disk":{"DiskMB":0}},
             "Attributes":{"kernel.name":"linux","driver.raw_exec":"1"},"Meta":{"rack":"r1"},
             "LastDrain":{"Meta":{"message":"maintenance"}}}""".formatted(NODE_ID);
    private static final String ALLOCS = """
            [{"ID":"8ba85cef-1111-2222-3333-444444444444","EvalID":"0a3f1234-5678-9abc-def0-123456789abc",
              "NodeID":"%s","TaskGroup":"cache","Job":{"Version":3,"Type":"service"},"DesiredStatus":"run",
              "ClientStatus":"running","CreateTime":1704207845000000000,"ModifyTime":1704207845000000000,
              "AllocatedResources":{"Tasks":{"redis":{"Cpu":{"CpuShares":500},"Memory":{"MemoryMB":256}}},
                "Shared":{"DiskMB":300}}}]""".formatted(NODE_ID);

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "TZ", "UTC");
        agent.json("/v1/nodes", """
                [{"ID":"%s","NodePool":"default","Datacenter":"dc1","Name":"vm","NodeClass":"",
                  "Address":"10.0.0.5","Version":"0.1.0","Drain":false,"SchedulingEligibility":"eligible",
                  "Status":"ready"}]""".formatted(NODE_ID))
                .json("/v1/node/" + NODE_ID, NODE)
                .json("/v1/node/" + NODE_ID + "/allocations", ALLOCS);
    }

    @Test
    void statusListsNodesWithNoneForEmptyCells() {
        Cli.Result r = Cli.run(env, "node", "status");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ID        Node Pool  DC   Name  Class   Drain  Eligibility  Status
                171a583b  default    dc1  vm    <none>  false  eligible     ready
                """, r.out());

        Cli.Result verbose = Cli.run(env, "node", "status", "-verbose", "-allocs");
        assertEquals("""
                ID                                    Node Pool  DC   Name  Class   Address   Version  Drain  Eligibility  Status  Running Allocs
                %s  default    dc1  vm    <none>  10.0.0.5  0.1.0    false  eligible     ready   1
                """.formatted(NODE_ID), verbose.out());

        assertEquals(NODE_ID + "\n", Cli.run(env, "node", "status", "-quiet").out());
    }

    @Test
    void statusOfOneNodeShowsDriversEventsResourcesAndAllocations() {
        Cli.Result r = Cli.run(env, "node", "status", "171a");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ID              = %s
                Name            = vm
                Node Pool       = default
                Class           = <none>
                DC              = dc1
                Drain           = true; 2024-01-02T16:04:05Z deadline; ignoring system jobs
                Eligibility     = ineligible
                Status          = ready
                CSI Controllers = <none>
                CSI Drivers     = <none>
                Host Volumes    = <none>
                Host Networks   = <none>
                CSI Volumes     = <none>
                Driver Status   = exec (unhealthy),raw_exec

                Node Events
                Time                  Subsystem  Message
                2024-01-02T15:04:05Z  Drain      Node drain strategy set
                2024-01-02T15:00:00Z  Cluster    Node registered

                Allocated Resources
                CPU           Memory           Disk             Alloc Count
                500/3900 MHz  256 MiB/8.0 GiB  300 MiB/100 GiB  1

                Allocations
                """.formatted(NODE_ID), r.out().substring(0, r.out().indexOf("Allocations\n") + 12));
        // Created and Modified are "... ago", relative to now.
        assertTrue(r.out().matches("(?s).*\\nID        Node ID   Task Group  Version  Desired  Status   Created +Modified\\n"
                + "8ba85cef  171a583b  cache       3        run      running  \\S+ ago +\\S+ ago\\n"), r.out());
    }

    @Test
    void verboseDetailAddsDriverTableAttributesAndMeta() {
        Cli.Result r = Cli.run(env, "node", "status", "-verbose", NODE_ID);
        assertEquals(0, r.code(), r.err());
        String out = r.out();
        assertTrue(out.contains("""

                Drivers
                Driver    Detected  Healthy  Message     Time
                docker    false     false    <none>      <none>
                exec      true      false    no cgroups  <none>
                raw_exec  true      true     Healthy     2024-01-02T15:04:05Z
                """), out);
        assertTrue(out.contains("""
                Time                  Subsystem  Message                  Details
                2024-01-02T15:04:05Z  Drain      Node drain strategy set  by: ops
                2024-01-02T15:00:00Z  Cluster    Node registered          <none>
                """), out);
        assertTrue(out.contains("""
                ID                                    Eval ID                               Node ID                               Task Group  Version  Desired  Status   Created               Modified
                8ba85cef-1111-2222-3333-444444444444  0a3f1234-5678-9abc-def0-123456789abc  %s  cache       3        run      running  2024-01-02T15:04:05Z  2024-01-02T15:04:05Z

                Attributes
                driver.raw_exec = 1
                kernel.name     = linux

                Meta
                rack = r1
                """.formatted(NODE_ID)), out);
    }

    @Test
    void selfIsTheAgentsNodeFromItsStatsOrItsName() {
        agent.json("/v1/agent/self", "{\"config\":{},\"stats\":{\"client\":{\"node_id\":\"" + NODE_ID + "\"}}}");
        Cli.Result r = Cli.run(env, "node", "status", "-self", "-short");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("ID              = " + NODE_ID + "\n"), r.out());
        assertTrue(r.out().contains("Drivers         = exec,raw_exec\n"), r.out());

        agent.json("/v1/agent/self", "{\"config\":{\"NodeName\":\"vm\"},\"stats\":{\"client\":{}}}");
        assertEquals(0, Cli.run(env, "node", "status", "-self").code());

        agent.json("/v1/agent/self", "{\"config\":{},\"stats\":{\"nomad\":{}}}");
        Cli.Result server = Cli.run(env, "node", "status", "-self");
        assertEquals(1, server.code());
        assertEquals("Error querying node info: Agent not running in client mode\n", server.err());
    }

    @Test
    void eligibilityPutsTheNewValue() throws Exception {
        agent.json("/v1/node/" + NODE_ID + "/eligibility", "{\"EvalIDs\":null,\"NodeModifyIndex\":9,\"Index\":9}");
        Cli.Result r = Cli.run(env, "node", "eligibility", "-disable", "171a");
        assertEquals(0, r.code(), r.err());
        assertEquals("Node \"" + NODE_ID + "\" scheduling eligibility set: ineligible for scheduling\n", r.out());
        JsonNode body = body("/v1/node/" + NODE_ID + "/eligibility");
        assertEquals(NODE_ID, body.get("NodeID").asText());
        assertEquals("ineligible", body.get("Eligibility").asText());

        Cli.Result both = Cli.run(env, "node", "eligibility", "-enable", "-disable", "171a");
        assertEquals(1, both.code());
        assertEquals("Either the '-enable' or '-disable' flag must be set\n"
                + "For additional help try 'caravan node eligibility -h'\n", both.err());
        Cli.Result none = Cli.run(env, "node", "eligibility", "-enable");
        assertEquals(1, none.code());
        assertTrue(none.err().startsWith("Node ID must be specified if -self isn't being used\n"), none.err());
    }

    @Test
    void drainEnableDetachedSendsTheSpec() throws Exception {
        agent.json("/v1/node/" + NODE_ID + "/drain", "{\"EvalIDs\":[],\"NodeModifyIndex\":9,\"Index\":9}");
        Cli.Result r = Cli.run(env, "node", "drain", "-enable", "-deadline", "30m", "-ignore-system", "-detach",
                "-m", "kernel upgrade", NODE_ID);
        assertEquals(0, r.code(), r.err());
        assertEquals("Node \"" + NODE_ID + "\" drain strategy set\n", r.out());
        JsonNode body = body("/v1/node/" + NODE_ID + "/drain");
        assertEquals(1_800_000_000_000L, body.path("DrainSpec").path("Deadline").asLong());
        assertEquals(true, body.path("DrainSpec").path("IgnoreSystemJobs").asBoolean());
        assertEquals(true, body.path("MarkEligible").asBoolean());
        assertEquals("kernel upgrade", body.path("Meta").path("message").asText());
    }

    @Test
    void drainDisableClearsTheSpecAndKeepsTheLastMeta() throws Exception {
        agent.json("/v1/node/" + NODE_ID + "/drain", "{}");
        Cli.Result r = Cli.run(env, "node", "drain", "-disable", "-keep-ineligible", "-yes", "171a");
        assertEquals(0, r.code(), r.err());
        assertEquals("Node \"" + NODE_ID + "\" drain strategy unset\n", r.out());
        JsonNode body = body("/v1/node/" + NODE_ID + "/drain");
        assertTrue(body.get("DrainSpec").isNull(), body.toString());
        assertEquals(false, body.path("MarkEligible").asBoolean());
        assertEquals("maintenance", body.path("Meta").path("message").asText());
    }

    @Test
    void drainOfAPrefixAsksFirst() {
        agent.json("/v1/node/" + NODE_ID + "/drain", "{}");
        Cli.Result no = Cli.withInput("n\n", env, "node", "drain", "-enable", "-detach", "171a");
        assertEquals(0, no.code(), no.err());
        assertEquals("Are you sure you want to enable drain mode for node \"" + NODE_ID + "\"? [y/N] "
                + "Canceling drain toggle\n", no.out());
        assertEquals(0, agent.requests().stream().filter(q -> q.path().endsWith("/drain")).count());

        Cli.Result vague = Cli.withInput("yes\n", env, "node", "drain", "-enable", "-detach", "171a");
        assertEquals(0, vague.code(), vague.err());
        assertTrue(vague.out().endsWith("For confirmation, an exact ‘y’ is required.\n"), vague.out());

        Cli.Result yes = Cli.withInput("y\n", env, "node", "drain", "-enable", "-detach", "171a");
        assertEquals(0, yes.code(), yes.err());
        assertTrue(yes.out().endsWith("drain strategy set\n"), yes.out());
    }

    @Test
    void drainWithoutDetachFollowsItToTheEnd() {
        String draining = NODE;
        String done = NODE.replaceFirst("\"DrainStrategy\":\\{[^}]*\\}", "\"DrainStrategy\":null");
        String migrating = ALLOCS.replace("\"Job\":", "\"DesiredTransition\":{\"Migrate\":true},\"Job\":");
        agent.json("/v1/node/" + NODE_ID + "/drain", "{}")
                .sequence("/v1/node/" + NODE_ID, draining, draining, draining, done)
                .sequence("/v1/node/" + NODE_ID + "/allocations", ALLOCS, migrating,
                        migrating.replace("\"running\"", "\"complete\"").replace("\"run\"", "\"stop\""));
        Cli.Result r = Cli.run(env, "node", "drain", "-enable", "-yes", NODE_ID);
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                <t>: Ctrl-C to stop monitoring: will not cancel the node drain
                <t>: Node "%1$s" drain strategy set
                <t>: Alloc "8ba85cef-1111-2222-3333-444444444444" marked for migration
                <t>: Drain complete for node %1$s
                <t>: Alloc "8ba85cef-1111-2222-3333-444444444444" status running -> complete
                <t>: All allocations on node "%1$s" have stopped
                """.formatted(NODE_ID), EvalMonitorTest.untimed(r.out()));
    }

    @Test
    void drainFlagRules() {
        Cli.Result r = Cli.run(env, "node", "drain", "-disable", "-force", NODE_ID);
        assertEquals(1, r.code());
        assertTrue(r.err().startsWith("-disable can't be combined with flags configuring drain strategy\n"), r.err());
        Cli.Result bad = Cli.run(env, "node", "drain", "-enable", "-deadline", "soon", NODE_ID);
        assertEquals(1, bad.code());
        assertTrue(bad.err().startsWith("Failed to parse deadline \"soon\": time: invalid duration \"soon\"\n"),
                bad.err());
    }

    private JsonNode body(String path) throws Exception {
        return new ObjectMapper().readTree(agent.last(path).body());
    }
}
