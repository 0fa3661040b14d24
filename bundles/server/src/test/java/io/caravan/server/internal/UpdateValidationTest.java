package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import org.junit.jupiter.api.Test;

/** Nomad's update strategy rules, checked on the group's block over the job's over the defaults. */
class UpdateValidationTest {

    private static List<String> problems(String jobUpdate, String groupUpdate) throws Exception {
        ObjectNode job = JobLimitsTest.job("web", 1);
        if (jobUpdate != null) {
            job.set("Update", NomadJson.mapper().readTree(jobUpdate));
        }
        if (groupUpdate != null) {
            ((ObjectNode) job.path("TaskGroups").get(0)).set("Update", NomadJson.mapper().readTree(groupUpdate));
        }
        return Jobs.validate(job).stream().filter(p -> p.contains(".Update")).toList();
    }

    @Test
    void aSensibleStrategyAndNoneAtAllPass() throws Exception {
        assertEquals(List.of(), problems(null, null));
        assertEquals(List.of(), problems(null, "{\"Canary\": 1, \"MaxParallel\": 2, \"HealthCheck\": \"manual\", "
                + "\"AutoPromote\": true}"));
    }

    @Test
    void eachRuleNamesTheFieldAndTheReason() throws Exception {
        assertEquals(List.of(
                "TaskGroups[0].Update.HealthCheck: invalid health check given: \"http\" (one of checks, task_states, "
                        + "manual)",
                "TaskGroups[0].Update.MaxParallel: max parallel can not be less than zero: -1 < 0",
                "TaskGroups[0].Update.AutoPromote: auto promote requires a canary count greater than zero",
                "TaskGroups[0].Update.MinHealthyTime: minimum healthy time must be less than healthy deadline: "
                        + "10m0s > 5m0s"),
                problems(null, "{\"HealthCheck\": \"http\", \"MaxParallel\": -1, \"AutoPromote\": true, "
                        + "\"MinHealthyTime\": 600000000000}"));
    }

    @Test
    void theGroupInheritsTheJobsFields() throws Exception {
        assertEquals(List.of("TaskGroups[0].Update.HealthyDeadline: healthy deadline must be less than progress "
                        + "deadline: 20m0s > 10m0s"),
                problems("{\"HealthyDeadline\": 1200000000000}", "{\"MaxParallel\": 1}"));
        assertEquals(List.of(), problems("{\"HealthyDeadline\": 1200000000000}",
                "{\"ProgressDeadline\": 0}"), "progress_deadline = 0 turns the deadline off");
    }
}
