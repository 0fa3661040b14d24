package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.CaravanException;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Job;
import io.caravan.api.model.UpdateStrategy;
import org.junit.jupiter.api.Test;

/**
 * Nomad's update strategy canonicalisation at registration: service and system jobs get the default strategy, a
 * job-level block fills its gaps from it and each group gets the job's under its own; the job level is stored with
 * only stagger and max_parallel.
 */
class UpdateDefaultsTest {
    private static final UpdateStrategy DEFAULT = new UpdateStrategy(Duration.ofSeconds(30), 1, "checks",
            Duration.ofSeconds(10), Duration.ofMinutes(5), Duration.ofMinutes(10), 0, false, false);
    private static final UpdateStrategy NONE = new UpdateStrategy(Duration.ZERO, 0, "", Duration.ZERO, Duration.ZERO,
            Duration.ZERO, 0, false, false);

    private static ObjectNode job(String type, String jobUpdate, String groupUpdate) throws Exception {
        ObjectNode job = JobLimitsTest.job("web", 3).put("Type", type);
        if (jobUpdate != null) {
            job.set("Update", NomadJson.mapper().readTree(jobUpdate));
        }
        if (groupUpdate != null) {
            ((ObjectNode) job.path("TaskGroups").get(0)).set("Update", NomadJson.mapper().readTree(groupUpdate));
        }
        return job;
    }

    private static Job registered(String type, String jobUpdate, String groupUpdate) throws Exception {
        return Jobs.canonical(job(type, jobUpdate, groupUpdate), "global");
    }

    /** What {@code /v1/jobs/parse} with {@code Canonicalize} and {@code /v1/validate/job} see: the API's form. */
    private static ObjectNode canonicalTree(String type, String jobUpdate, String groupUpdate) throws Exception {
        ObjectNode job = job(type, jobUpdate, groupUpdate);
        Jobs.defaults(job, "global", JobLimits.DEFAULT);
        return job;
    }

    @Test
    void aServiceJobWithoutUpdateGetsNomadsDefaultInEveryGroup() throws Exception {
        Job job = registered("service", null, null);
        assertEquals(DEFAULT, job.taskGroups().get(0).update());
        assertEquals(new UpdateStrategy(Duration.ofSeconds(30), 1, "", Duration.ZERO, Duration.ZERO, Duration.ZERO, 0,
                false, false), job.update(), "the job level keeps stagger and max_parallel only, as Nomad stores it");
        JsonNode json = NomadJson.mapper().valueToTree(job);
        assertEquals(30_000_000_000L, json.path("Update").path("Stagger").asLong());
        assertEquals(600_000_000_000L, json.path("TaskGroups").get(0).path("Update").path("ProgressDeadline")
                .asLong(), "durations in nanoseconds");

        ObjectNode api = canonicalTree("service", null, null);
        assertEquals(DEFAULT, NomadJson.mapper().treeToValue(api.path("Update"), UpdateStrategy.class),
                "the API's canonical form has the whole default at job level");
    }

    @Test
    void aPartialJobLevelBlockIsFilledFromTheDefaultsAndInherited() throws Exception {
        Job job = registered("service", "{\"MaxParallel\": 2, \"Canary\": 1, \"AutoPromote\": true}", null);
        assertEquals(new UpdateStrategy(Duration.ofSeconds(30), 2, "checks", Duration.ofSeconds(10),
                Duration.ofMinutes(5), Duration.ofMinutes(10), 1, false, true), job.taskGroups().get(0).update());
        assertEquals(2, job.update().maxParallel());
        assertEquals("", job.update().healthCheck());
    }

    @Test
    void aGroupsOwnFieldsOverrideTheJobsWhichFillTheRest() throws Exception {
        Job job = registered("service", "{\"MaxParallel\": 2, \"MinHealthyTime\": 5000000000}",
                "{\"HealthCheck\": \"task_states\", \"MaxParallel\": 3}");
        assertEquals(new UpdateStrategy(Duration.ofSeconds(30), 3, "task_states", Duration.ofSeconds(5),
                Duration.ofMinutes(5), Duration.ofMinutes(10), 0, false, false), job.taskGroups().get(0).update());

        Job noJobBlock = registered("service", null, "{\"MaxParallel\": 0}");
        assertEquals(new UpdateStrategy(Duration.ofSeconds(30), 0, "checks", Duration.ofSeconds(10),
                Duration.ofMinutes(5), Duration.ofMinutes(10), 0, false, false), noJobBlock.taskGroups().get(0)
                .update(), "max_parallel = 0 in the group: no deployment, the rest still canonical");
    }

    @Test
    void anEmptyJobLevelBlockIsNotInherited() throws Exception {
        Job job = registered("service", "{\"Stagger\": 0, \"MaxParallel\": 0, \"HealthCheck\": \"\", "
                + "\"MinHealthyTime\": 0, \"HealthyDeadline\": 0, \"ProgressDeadline\": 0, \"Canary\": 0, "
                + "\"AutoRevert\": false, \"AutoPromote\": false}", null);
        assertNull(job.taskGroups().get(0).update(), "an all-zero job block is Nomad's 'empty': groups get none");
        assertEquals(NONE, job.update());

        Job zeroParallel = registered("service", "{\"MaxParallel\": 0}", null);
        assertEquals(0, zeroParallel.taskGroups().get(0).update().maxParallel(),
                "max_parallel = 0 alone is not empty once the defaults fill the rest: the groups inherit it");
        assertEquals(NONE, zeroParallel.update());
    }

    @Test
    void batchJobsGetNoUpdateAndMayNotHaveOne() throws Exception {
        for (String type : new String[] {"batch", "sysbatch"}) {
            Job job = registered(type, null, null);
            assertNull(job.taskGroups().get(0).update(), type);
            assertEquals(NONE, job.update(), type + ": the stored job level is all zero, as Nomad's");
            assertNull(canonicalTree(type, null, null).get("Update"), type);
            CaravanException e = assertThrows(CaravanException.class,
                    () -> registered(type, "{\"MaxParallel\": 1}", null));
            assertTrue(e.getMessage().contains("TaskGroups[0].Update: job type \"" + type
                    + "\" does not allow update block"), e.getMessage());
        }
    }

    @Test
    void systemJobsStoreTheDefaultsToo() throws Exception {
        Job job = registered("system", null, null);
        assertEquals(DEFAULT, job.taskGroups().get(0).update());
        assertEquals(1, job.update().maxParallel());
    }

    @Test
    void theRoutesAgreeParseCanonicalisesRegisterStoresAndTheJobReadsBack() throws Exception {
        try (RoutesHarness h = new RoutesHarness()) {
            String hcl = "job \"web\" {\n  group \"g\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n"
                    + "      config {\n        command = \"/bin/true\"\n      }\n    }\n  }\n}\n";
            ObjectNode parse = NomadJson.mapper().createObjectNode().put("JobHCL", hcl).put("Canonicalize", true);
            JsonNode parsed = NomadJson.mapper().valueToTree(h.call("POST", "/v1/jobs/parse", java.util.Map.of(),
                    parse).body());
            assertEquals(DEFAULT, NomadJson.mapper().treeToValue(parsed.path("Update"), UpdateStrategy.class));
            assertEquals(DEFAULT, NomadJson.mapper().treeToValue(parsed.path("TaskGroups").get(0).path("Update"),
                    UpdateStrategy.class));
            JsonNode raw = NomadJson.mapper().valueToTree(h.call("POST", "/v1/jobs/parse", java.util.Map.of(),
                    parse.put("Canonicalize", false)).body());
            assertTrue(raw.path("Update").isMissingNode() || raw.path("Update").isNull(), "not asked: as written");

            ObjectNode body = NomadJson.mapper().createObjectNode();
            body.set("Job", parsed);
            h.call("PUT", "/v1/jobs", java.util.Map.of(), body);
            Job read = (Job) h.call("GET", "/v1/job/{id}", java.util.Map.of("id", "web"), null).body();
            assertEquals(DEFAULT, read.taskGroups().get(0).update());
            assertEquals(1, read.update().maxParallel());
            assertEquals(Duration.ZERO, read.update().healthyDeadline(), "the job level as Nomad stores it");
        }
    }

    @Test
    void theStoredFormRegistersAgainUnchanged() throws Exception {
        Job job = registered("service", "{\"MaxParallel\": 2}", "{\"Canary\": 1}");
        Job again = Jobs.canonical(NomadJson.mapper().valueToTree(job), "global");
        assertEquals(job.update(), again.update());
        assertEquals(job.taskGroups().get(0).update(), again.taskGroups().get(0).update());
        assertEquals(java.util.List.of(), Jobs.validate(NomadJson.mapper().valueToTree(job)),
                "what is stored passes the checks the Raft layer repeats");
    }
}
