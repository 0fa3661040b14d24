package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OperatorSchedulerCommandTest extends FakeAgentTest {
    private static final String PATH = "/v1/operator/scheduler/configuration";
    private static final String CONFIG = """
            {"SchedulerConfig":{"SchedulerAlgorithm":"binpack","MemoryOversubscriptionEnabled":false,
              "RejectJobRegistration":false,"PauseEvalBroker":false,
              "PreemptionConfig":{"SystemSchedulerEnabled":true,"SysBatchSchedulerEnabled":false,
                "BatchSchedulerEnabled":false,"ServiceSchedulerEnabled":false},"CreateIndex":5,"ModifyIndex":5},
             "Index":5,"LastContact":0,"KnownLeader":true}""";

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address());
        agent.json(PATH, CONFIG);
    }

    @Test
    void getConfigPrintsNomadsFields() {
        Cli.Result r = Cli.run(env, "operator", "scheduler", "get-config");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                Scheduler Algorithm           = binpack
                Memory Oversubscription       = false
                Reject Job Registration       = false
                Pause Eval Broker             = false
                Preemption System Scheduler   = true
                Preemption Service Scheduler  = false
                Preemption Batch Scheduler    = false
                Preemption SysBatch Scheduler = false
                Modify Index                  = 5
                """, r.out());
    }

    @Test
    void setConfigMergesTheFlagsAndChecksAndSets() throws Exception {
        agent.sequence(PATH, CONFIG, "{\"Updated\":true,\"Index\":6}");
        Cli.Result r = Cli.run(env, "operator", "scheduler", "set-config", "-scheduler-algorithm=spread",
                "-memory-oversubscription=true", "-preempt-service-scheduler", "-preempt-system-scheduler=false");
        assertEquals(0, r.code(), r.err());
        assertEquals("Scheduler configuration updated!\n", r.out());
        FakeAgent.Request put = agent.last(PATH);
        assertEquals("PUT", put.method());
        assertEquals("cas=5", put.query());
        JsonNode body = new ObjectMapper().readTree(put.body());
        assertEquals("spread", body.get("SchedulerAlgorithm").asText());
        assertEquals(true, body.get("MemoryOversubscriptionEnabled").asBoolean());
        assertEquals(false, body.get("RejectJobRegistration").asBoolean());
        assertEquals(true, body.path("PreemptionConfig").get("ServiceSchedulerEnabled").asBoolean());
        assertEquals(false, body.path("PreemptionConfig").get("SystemSchedulerEnabled").asBoolean());
        assertEquals(5, body.get("ModifyIndex").asLong());
    }

    @Test
    void aLostRaceExitsOne() {
        agent.sequence(PATH, CONFIG, "{\"Updated\":false,\"Index\":7}");
        Cli.Result r = Cli.run(env, "operator", "scheduler", "set-config", "-pause-eval-broker");
        assertEquals(1, r.code());
        assertEquals("Scheduler configuration could not be atomically updated, please try again\n", r.out());
    }

    @Test
    void checkIndexAndAlgorithmAreChecked() {
        Cli.Result stale = Cli.run(env, "operator", "scheduler", "set-config", "-check-index", "4",
                "-scheduler-algorithm", "spread");
        assertEquals(1, stale.code());
        assertEquals("Error performing check index set: check-index 4 does not match does not match current "
                + "state value 5\n", stale.err());
        Cli.Result bad = Cli.run(env, "operator", "scheduler", "set-config", "-scheduler-algorithm", "random");
        assertEquals(1, bad.code());
        assertTrue(bad.err().startsWith("Invalid scheduler algorithm \"random\": must be binpack or spread\n"),
                bad.err());
        Cli.Result notBool = Cli.run(env, "operator", "scheduler", "set-config", "-pause-eval-broker=maybe");
        assertEquals(1, notBool.code());
        assertEquals(0, agent.requests().stream().filter(q -> q.method().equals("PUT")).count());
    }
}
