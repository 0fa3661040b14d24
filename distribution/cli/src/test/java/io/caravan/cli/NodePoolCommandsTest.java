package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code node pool list|info|apply|delete|nodes|jobs|init}. */
class NodePoolCommandsTest extends FakeAgentTest {

    private Map<String, String> env() {
        return Map.of("CARAVAN_ADDR", agent.address());
    }

    @Test
    void listAndInfo() {
        agent.json("/v1/node/pools", """
                [{"Name":"all","Description":"Node pool with all nodes in the cluster."},
                 {"Name":"gpu","Description":""}]""");
        Cli.Result list = Cli.run(env(), "node", "pool", "list");
        assertEquals(0, list.code(), list.err());
        assertEquals(List.of("Name  Description", "all   Node pool with all nodes in the cluster.", "gpu   <none>"),
                list.outLines());

        agent.json("/v1/node/pool/gpu", """
                {"Name":"gpu","Description":"GPUs","Meta":{"team":"ml"},
                 "SchedulerConfiguration":{"SchedulerAlgorithm":"spread"}}""");
        Cli.Result info = Cli.run(env(), "node", "pool", "info", "gpu");
        assertEquals(0, info.code(), info.err());
        assertEquals(List.of("Name        = gpu", "Description = GPUs", "", "Metadata", "team = ml", "",
                "Scheduler Configuration", "Scheduler Algorithm             = spread",
                "Memory Oversubscription Enabled = <none>"), info.outLines());
    }

    @Test
    void applyAnHclSpecificationAndDelete(@TempDir Path tmp) throws Exception {
        Path spec = tmp.resolve("pool.hcl");
        Files.writeString(spec, """
                node_pool "gpu" {
                  description = "GPUs"
                  meta { team = "ml" }
                  scheduler_config {
                    scheduler_algorithm     = "spread"
                    memory_oversubscription = "enabled"
                  }
                }
                """);
        agent.json("/v1/node/pools", "{}");
        Cli.Result r = Cli.run(env(), "node", "pool", "apply", spec.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("Successfully applied node pool \"gpu\"!\n", r.out());
        JsonNode body = NomadJson.mapper().readTree(agent.last("/v1/node/pools").body());
        assertEquals("gpu", body.path("Name").asText());
        assertEquals("ml", body.path("Meta").path("team").asText());
        assertEquals("spread", body.path("SchedulerConfiguration").path("SchedulerAlgorithm").asText());
        assertTrue(body.path("SchedulerConfiguration").path("MemoryOversubscriptionEnabled").asBoolean());

        Files.writeString(spec, "node_pool \"x\" {\n  bogus = 1\n}\n");
        Cli.Result bad = Cli.run(env(), "node", "pool", "apply", spec.toString());
        assertEquals(1, bad.code());
        assertTrue(bad.err().contains("invalid key \"bogus\""), bad.err());

        agent.json("/v1/node/pool/gpu", "{}");
        Cli.Result del = Cli.run(env(), "node", "pool", "delete", "gpu");
        assertEquals(0, del.code(), del.err());
        assertEquals("DELETE", agent.last("/v1/node/pool/gpu").method());
        assertEquals("Successfully deleted node pool \"gpu\"!\n", del.out());
    }

    @Test
    void nodesAndJobs() {
        agent.json("/v1/node/pool/gpu/nodes", """
                [{"ID":"0123456789abcdef","NodePool":"gpu","Datacenter":"dc1","Name":"n1","NodeClass":"",
                  "Drain":false,"SchedulingEligibility":"eligible","Status":"ready"}]""");
        Cli.Result nodes = Cli.run(env(), "node", "pool", "nodes", "gpu");
        assertEquals(0, nodes.code(), nodes.err());
        assertEquals("01234567  gpu        dc1  n1    <none>  false  eligible     ready", nodes.outLines().get(1));
        agent.json("/v1/node/pool/gpu/jobs", "[]");
        Cli.Result jobs = Cli.run(env(), "node", "pool", "jobs", "gpu");
        assertEquals(List.of("No jobs in node pool \"gpu\""), jobs.outLines());
        assertEquals("namespace=*", agent.last("/v1/node/pool/gpu/jobs").query().replace("%2A", "*"));
    }

    @Test
    void initWritesAnExampleThatApplies(@TempDir Path tmp) throws Exception {
        Cli.Result r = Cli.inDir(tmp, env(), "node", "pool", "init");
        assertEquals(0, r.code(), r.err());
        assertEquals("Example node pool specification written to pool.nomad.hcl\n", r.out());
        assertTrue(Files.readString(tmp.resolve("pool.nomad.hcl")).contains("node_pool \"example\""));
        agent.json("/v1/node/pools", "{}");
        Cli.Result apply = Cli.run(env(), "node", "pool", "apply", tmp.resolve("pool.nomad.hcl").toString());
        assertEquals(0, apply.code(), apply.err());
        assertEquals(1, Cli.inDir(tmp, env(), "node", "pool", "init").code(), "never overwrites");
    }
}
