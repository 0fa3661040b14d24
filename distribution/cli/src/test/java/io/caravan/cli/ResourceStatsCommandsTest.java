package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code alloc status -stats} and {@code node status -stats} print the client's measurements as Nomad does. */
class ResourceStatsCommandsTest extends FakeAgentTest {
    private static final String ALLOC_ID = "8ba85cef-1111-2222-3333-444444444444";
    private static final String NODE_ID = NodeCommandsTest.NODE_ID;

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "TZ", "UTC");
        agent.json("/v1/allocations", "[{\"ID\":\"" + ALLOC_ID + "\"}]").json("/v1/allocation/" + ALLOC_ID, """
                {"ID":"%s","Name":"web.web[0]","NodeID":"%s","JobID":"web","TaskGroup":"web",
                 "Job":{"TaskGroups":[{"Name":"web","Tasks":[{"Name":"server"}]}]},
                 "ClientStatus":"running","DesiredStatus":"run","CreateTime":1704207845000000000,
                 "ModifyTime":1704207845000000000,
                 "AllocatedResources":{"Tasks":{"server":{"Cpu":{"CpuShares":500},"Memory":{"MemoryMB":256}}},
                   "Shared":{"DiskMB":300}},
                 "TaskStates":{"server":{"State":"running","Events":[]}}}""".formatted(ALLOC_ID, NODE_ID))
                .json("/v1/client/allocation/" + ALLOC_ID + "/stats", """
                {"ResourceUsage":{},"Timestamp":1,"Tasks":{"server":{"Timestamp":1,"Pids":{},"ResourceUsage":{
                  "MemoryStats":{"RSS":3145728,"Swap":0,"Measured":["Swap","RSS"]},
                  "CpuStats":{"Percent":12.5,"UserMode":10,"SystemMode":2.5,"TotalTicks":249.9,
                    "Measured":["System Mode","User Mode","Percent"]}}}}}""");
    }

    @Test
    void allocStatusStatsShowsUsageAndTheMeasuredFigures() {
        Cli.Result r = Cli.run(env, "alloc", "status", "-stats", "8ba8");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("""
                Task Resources:
                CPU          Memory           Disk     Addresses
                249/500 MHz  3.0 MiB/256 MiB  300 MiB

                Memory Stats
                RSS      Swap
                3.0 MiB  0 B

                CPU Stats
                Percent  System Mode  User Mode
                12.50%   2.50%        10.00%
                """), r.out());
    }

    @Test
    void withoutStatsNothingIsAsked() {
        Cli.Result r = Cli.run(env, "alloc", "status", "8ba8");
        assertEquals(0, r.code(), r.err());
        assertTrue(agent.requests().stream().noneMatch(q -> q.path().endsWith("/stats")));
        assertTrue(r.out().contains("500 MHz  256 MiB  300 MiB"), r.out());
    }

    @Test
    void nodeStatusStatsShowsTheHost() {
        agent.json("/v1/nodes", "[{\"ID\":\"" + NODE_ID + "\",\"Status\":\"ready\"}]")
                .json("/v1/node/" + NODE_ID, """
                        {"ID":"%s","Name":"vm","Status":"ready","NodeResources":{"Cpu":{"CpuShares":4000},
                         "Memory":{"MemoryMB":8192},"Disk":{"DiskMB":102400}}}""".formatted(NODE_ID))
                .json("/v1/node/" + NODE_ID + "/allocations", "[]")
                .json("/v1/client/stats", """
                        {"Memory":{"Total":8589934592,"Available":4294967296,"Used":4294967296,"Free":1073741824},
                         "CPU":[{"CPU":"cpu0","User":10,"System":5,"Idle":85,"Total":15},
                                {"CPU":"cpu1","User":0,"System":0,"Idle":100,"Total":0}],
                         "DiskStats":[{"Device":"/dev/sda1","Mountpoint":"/","Size":107374182400,
                           "Used":53687091200,"Available":53687091200,"UsedPercent":50,"InodesUsedPercent":0}],
                         "Uptime":100,"Timestamp":1,"CPUTicksConsumed":300.4}""");
        Cli.Result r = Cli.run(env, "node", "status", "-stats", "171a");
        assertEquals(0, r.code(), r.err());
        assertEquals(NODE_ID, agent.last("/v1/client/stats").query().replace("node_id=", ""));
        assertTrue(r.out().contains("""
                Host Resource Utilization
                CPU           Memory           Disk
                300/4000 MHz  4.0 GiB/8.0 GiB  50 GiB/100 GiB

                CPU Stats
                CPU    = cpu0
                User   = 10.00%
                System = 5.00%
                Idle   = 85.00%

                CPU    = cpu1
                User   = 0.00%
                System = 0.00%
                Idle   = 100.00%

                Memory Stats
                Total     = 8.0 GiB
                Available = 4.0 GiB
                Used      = 4.0 GiB
                Free      = 1.0 GiB

                Disk Stats
                Device         = /dev/sda1
                MountPoint     = /
                Size           = 100 GiB
                Used           = 50 GiB
                Available      = 50 GiB
                Used Percent   = 50.00%
                Inodes Percent = 0.00%
                """), r.out());
    }
}
