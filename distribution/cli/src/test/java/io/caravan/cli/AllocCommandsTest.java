package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AllocCommandsTest extends FakeAgentTest {
    private static final String ALLOC_ID = "8ba85cef-1111-2222-3333-444444444444";
    private static final String ALLOC = """
            {"ID":"%s","EvalID":"0a3f1234-5678-9abc-def0-123456789abc","Name":"web.cache[0]",
             "NodeID":"171a583b-aaaa-bbbb-cccc-dddddddddddd","NodeName":"vm","JobID":"web","TaskGroup":"cache",
             "Job":{"Version":3,"Type":"service","TaskGroups":[{"Name":"cache","Tasks":[{"Name":"redis"},
               {"Name":"init","Lifecycle":{"Hook":"prestart","Sidecar":false}}]}]},
             "ClientStatus":"running","ClientDescription":"Tasks are running","DesiredStatus":"run",
             "DesiredDescription":"","CreateTime":1704207845000000000,"ModifyTime":1704207845000000000,
             "Metrics":{"NodesEvaluated":1,"NodesFiltered":0,"NodesExhausted":0,"AllocationTime":1500000,
               "CoalescedFailures":0},
             "AllocatedResources":{"Tasks":{"redis":{"Cpu":{"CpuShares":500},"Memory":{"MemoryMB":256,"MemoryMaxMB":512},
                 "Networks":[{"IP":"10.0.0.5","DynamicPorts":[{"Label":"db","Value":23456}]}]},
               "init":{"Cpu":{"CpuShares":100},"Memory":{"MemoryMB":64}}},
               "Shared":{"DiskMB":300}},
             "TaskStates":{
               "redis":{"State":"running","Failed":false,"Restarts":1,"LastRestart":"2024-01-02T15:05:00Z",
                 "StartedAt":"2024-01-02T15:04:06Z","FinishedAt":null,
                 "Events":[{"Type":"Received","Time":1704207845000000000},
                   {"Type":"Terminated","Time":1704207846000000000,"ExitCode":137,"Signal":9,"Message":"OOM"},
                   {"Type":"Restarting","Time":1704207847000000000,"StartDelay":15000000000,
                    "RestartReason":"Restart within policy"},
                   {"Type":"Started","Time":1704207862000000000,"DisplayMessage":"Task started by client"}]},
               "init":{"State":"dead","Failed":false,"StartedAt":"2024-01-02T15:04:05Z",
                 "FinishedAt":"2024-01-02T15:04:06Z","Events":[]}}}""".formatted(ALLOC_ID);

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "TZ", "UTC");
        agent.json("/v1/allocations", "[{\"ID\":\"" + ALLOC_ID + "\"}]").json("/v1/allocation/" + ALLOC_ID, ALLOC);
    }

    @Test
    void statusShowsTheGroupsAllocatedAddresses() {
        agent.json("/v1/allocation/" + ALLOC_ID, ALLOC.replace("\"Shared\":{\"DiskMB\":300}",
                "\"Shared\":{\"DiskMB\":300,\"Networks\":[{\"Mode\":\"host\",\"IP\":\"10.0.0.5\","
                        + "\"ReservedPorts\":[{\"Label\":\"admin\",\"Value\":9000}]}],"
                        + "\"Ports\":[{\"Label\":\"http\",\"Value\":23456,\"To\":8080,\"HostIP\":\"10.0.0.5\"},"
                        + "{\"Label\":\"admin\",\"Value\":9000,\"To\":0,\"HostIP\":\"10.0.0.5\"}]}"));
        Cli.Result r = Cli.run(env, "alloc", "status", ALLOC_ID);
        assertEquals(0, r.code(), r.err());
        String out = r.out().lines().map(String::stripTrailing).reduce("", (a, b) -> a + b + "\n");
        assertTrue(out.contains("""

                Allocation Addresses:
                Label   Dynamic  Address
                *http   yes      10.0.0.5:23456 -> 8080
                *admin  no       10.0.0.5:9000
                """), out);
    }

    @Test
    void statusShowsCheckStatesAndAllocChecksTheirResults() {
        agent.json("/v1/allocation/" + ALLOC_ID, ALLOC.replace("{\"Name\":\"redis\"}",
                "{\"Name\":\"redis\",\"Services\":[{\"Name\":\"db\",\"Checks\":[{\"Name\":\"ping\"}]}]}"));
        agent.json("/v1/client/allocation/" + ALLOC_ID + "/checks", """
                {"c1":{"ID":"c1","Check":"ping","Group":"cache","Task":"redis","Service":"db","Mode":"healthiness",
                  "Status":"success","StatusCode":200,"Output":"HTTP GET: 200","Timestamp":1704207845}}""");
        Cli.Result r = Cli.run(env, "alloc", "status", ALLOC_ID);
        assertEquals(0, r.code(), r.err());
        String out = r.out().lines().map(String::stripTrailing).reduce("", (a, b) -> a + b + "\n");
        assertTrue(out.contains("""
                Nomad Service Checks:
                Service  Task   Name  Mode         Status
                db       redis  ping  healthiness  success
                """), out);
        Cli.Result checks = Cli.run(env, "alloc", "checks", ALLOC_ID);
        assertEquals(0, checks.code(), checks.err());
        assertTrue(checks.out().startsWith("Status of 1 Nomad Service Checks\n"), checks.out());
        assertTrue(checks.out().contains("Status     = success"), checks.out());
        assertTrue(checks.out().contains("StatusCode = 200"), checks.out());
    }

    @Test
    void statusShowsFieldsTasksResourcesAndEvents() {
        Cli.Result r = Cli.run(env, "alloc", "status", "-verbose", "8ba8");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ID                  = %s
                Eval ID             = 0a3f1234-5678-9abc-def0-123456789abc
                Name                = web.cache[0]
                Node ID             = 171a583b-aaaa-bbbb-cccc-dddddddddddd
                Node Name           = vm
                Job ID              = web
                Job Version         = 3
                Client Status       = running
                Client Description  = Tasks are running
                Desired Status      = run
                Desired Description = <none>
                Created             = 2024-01-02T15:04:05Z
                Modified            = 2024-01-02T15:04:05Z
                Evaluated Nodes     = 1
                Filtered Nodes      = 0
                Exhausted Nodes     = 0
                Allocation Time     = 1.5ms
                Failures            = 0

                Task "init" (prestart) is "dead"
                Task Resources:
                CPU      Memory  Disk     Addresses
                100 MHz  64 MiB  300 MiB

                Task Events:
                Started At     = 2024-01-02T15:04:05Z
                Finished At    = 2024-01-02T15:04:06Z
                Total Restarts = 0
                Last Restart   = N/A

                Recent Events:
                Time  Type  Description

                Task "redis" is "running"
                Task Resources:
                CPU      Memory        Disk     Addresses
                500 MHz  256 MiB       300 MiB  db: 10.0.0.5:23456
                         Max: 512 MiB

                Task Events:
                Started At     = 2024-01-02T15:04:06Z
                Finished At    = N/A
                Total Restarts = 1
                Last Restart   = 2024-01-02T15:05:00Z

                Recent Events:
                Time                  Type        Description
                2024-01-02T15:04:22Z  Started     Task started by client
                2024-01-02T15:04:07Z  Restarting  Task restarting in 15s
                2024-01-02T15:04:06Z  Terminated  Exit Code: 137, Signal: 9, Exit Message: "OOM"
                2024-01-02T15:04:05Z  Received    Task received by client

                Placement Metrics
                """.formatted(ALLOC_ID), r.out());
    }

    @Test
    void shortStatusListsTheTasks() {
        Cli.Result r = Cli.run(env, "alloc", "status", "-short", ALLOC_ID);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().endsWith("""
                Tasks
                Name   State    Last Event  Time                  Lifecycle
                init   dead     <none>      <none>                prestart
                redis  running  Started     2024-01-02T15:04:22Z  main
                """), r.out());
    }

    @Test
    void stopMonitorsTheReplacementEvaluation() {
        String eval = "e5e5e5e5-0000-1111-2222-333333333333";
        agent.json("/v1/allocation/" + ALLOC_ID + "/stop", "{\"EvalID\":\"" + eval + "\",\"Index\":12}")
                .json("/v1/evaluation/" + eval, "{\"ID\":\"" + eval + "\",\"JobID\":\"web\",\"Status\":\"complete\","
                        + "\"CreateIndex\":12}")
                .json("/v1/evaluation/" + eval + "/allocations", """
                        [{"ID":"99999999-0000-1111-2222-333333333333","NodeID":"171a583b-aaaa","TaskGroup":"cache",
                          "DesiredStatus":"run","ClientStatus":"pending","CreateIndex":12}]""");
        Cli.Result r = Cli.run(env, "alloc", "stop", "8ba8");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                ==> <t>: Monitoring evaluation "e5e5e5e5"
                    <t>: Evaluation triggered by job "web"
                    <t>: Allocation "99999999" created: node "171a583b", group "cache"
                    <t>: Evaluation status changed: "pending" -> "complete"
                ==> <t>: Evaluation "e5e5e5e5" finished with status "complete"
                """, EvalMonitorTest.untimed(r.out()));
        FakeAgent.Request stop = agent.last("/v1/allocation/" + ALLOC_ID + "/stop");
        assertEquals("PUT", stop.method());
        assertEquals(null, stop.query());
    }

    @Test
    void stopDetachedPrintsTheEvaluationAndReschedulesBatch() {
        agent.json("/v1/allocation/" + ALLOC_ID, ALLOC.replace("\"Type\":\"service\"", "\"Type\":\"batch\""))
                .json("/v1/allocation/" + ALLOC_ID + "/stop", "{\"EvalID\":\"e-1\",\"Index\":12}");
        Cli.Result r = Cli.run(env, "alloc", "stop", "-detach", ALLOC_ID);
        assertEquals(0, r.code(), r.err());
        assertEquals("e-1\n", r.out());
        assertEquals("reschedule=true", agent.last("/v1/allocation/" + ALLOC_ID + "/stop").query());
    }

    @Test
    void unknownAllocationIsOneLineAndExitOne() {
        agent.json("/v1/allocations", "[]");
        Cli.Result r = Cli.run(env, "alloc", "stop", "ff");
        assertEquals(1, r.code());
        assertEquals("Error stopping allocation: No allocation(s) with prefix or id \"ff\" found\n", r.err());
    }
}
