package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.ErrorCode;
import io.caravan.api.CaravanException;
import io.caravan.api.model.Deployment;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.state.StateSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The job lifecycle's correctness fixes, through the routes: stopping a blocked job, a body for another job. */
class JobLifecycleTest {
    private final RoutesHarness h = new RoutesHarness();

    @AfterEach
    void stop() {
        h.close();
    }

    /** A job no node can run (there are none): its first evaluation completes with a blocked one. */
    static JsonNode job(String id) {
        return RoutesHarness.json("""
                {"Job": {"ID": "%s", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "web", "Count": 1,
                  "Constraints": [{"LTarget": "${attr.kernel.name}", "RTarget": "plan9", "Operand": "="}],
                  "Tasks": [{"Name": "server", "Driver": "raw_exec", "Config": {"command": "/bin/sleep"}}]}]}}
                """.formatted(id));
    }

    /** {@link #job} with {@code update { max_parallel = 0 }}: Nomad makes no deployment for it. */
    static JsonNode jobWithoutDeployment(String id) {
        com.fasterxml.jackson.databind.node.ObjectNode body = (com.fasterxml.jackson.databind.node.ObjectNode) job(id);
        ((com.fasterxml.jackson.databind.node.ObjectNode) body.get("Job")).putObject("Update").put("MaxParallel", 0);
        return body;
    }

    private Job stored(String id) {
        return h.snapshot().get(NomadTables.JOBS, NomadTables.key("default", id)).orElseThrow();
    }

    private List<Evaluation> evals(String id) {
        return h.snapshot().byIndex(NomadTables.EVALS, "job", NomadTables.key("default", id)).toList();
    }

    @Test
    void stoppingAJobBlockedOnAConstraintMakesItDeadAndCancelsItsBlockedEval() throws Exception {
        h.call("PUT", "/v1/jobs", Map.of(), job("web"));
        h.schedule();
        Evaluation blocked = evals("web").stream().filter(e -> Evaluation.STATUS_BLOCKED.equals(e.status()))
                .findFirst().orElseThrow(() -> new AssertionError("no blocked eval: " + evals("web")));
        // A service job gets Nomad's default update strategy, so its first evaluation made a deployment (with
        // nothing placed yet): while it is active the job is running, as in Nomad.
        Deployment deployment = h.snapshot().byIndex(NomadTables.DEPLOYMENTS, "job", NomadTables.key("default", "web"))
                .findFirst().orElseThrow(() -> new AssertionError("no deployment"));
        assertEquals(Deployment.STATUS_RUNNING, deployment.status());
        assertEquals(Job.STATUS_RUNNING, stored("web").status(), "an active deployment: running, as Nomad");

        h.call("DELETE", "/v1/job/{id}", Map.of("id", "web"), null);
        assertEquals(Job.STATUS_RUNNING, stored("web").status(), "the stop's evaluation has not run yet");
        h.schedule();

        assertEquals(Job.STATUS_DEAD, stored("web").status());
        assertEquals(Deployment.STATUS_CANCELLED, h.snapshot().get(NomadTables.DEPLOYMENTS, deployment.id())
                .orElseThrow().status(), "stopping the job cancels its deployment");
        Evaluation canceled = h.snapshot().get(NomadTables.EVALS, blocked.id()).orElseThrow();
        assertEquals(Evaluation.STATUS_CANCELED, canceled.status());
        assertTrue(canceled.statusDescription().endsWith("successful"), canceled.statusDescription());
        assertTrue(evals("web").stream().allMatch(Evaluation::terminal), evals("web").toString());
        // Through the API as well: the job reads dead.
        Job read = (Job) h.call("GET", "/v1/job/{id}", Map.of("id", "web"), null).body();
        assertEquals(Job.STATUS_DEAD, read.status());
    }

    @Test
    void anEvaluationThatStillFailsToPlaceLeavesTheBlockedOneAlone() throws Exception {
        h.call("PUT", "/v1/jobs", Map.of(), jobWithoutDeployment("web"));
        h.schedule();
        h.call("PUT", "/v1/jobs", Map.of(), jobWithoutDeployment("web")); // a new evaluation, failing again
        h.schedule();
        assertTrue(evals("web").stream().anyMatch(e -> Evaluation.STATUS_BLOCKED.equals(e.status())),
                evals("web").toString());
        assertEquals(Job.STATUS_PENDING, stored("web").status(), "blocked and no deployment: pending, as Nomad");
    }

    @Test
    void aBodyForAnotherJobIsRefusedAndNothingIsWritten() throws Exception {
        h.call("PUT", "/v1/jobs", Map.of(), job("other"));
        long before = h.writes.get();
        StateSnapshot was = h.snapshot();
        CaravanException e = h.refused("PUT", "/v1/job/{id}", Map.of("id", "web"), job("other"));
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        assertEquals("Job ID does not match name", e.getMessage());
        e = h.refused("POST", "/v1/job/{id}", Map.of("id", "web"), job("other"));
        assertEquals("Job ID does not match name", e.getMessage());
        assertEquals(before, h.writes.get(), "nothing reached the log");
        assertEquals(was.count(NomadTables.JOBS), h.snapshot().count(NomadTables.JOBS));
        assertEquals(ErrorCode.BAD_REQUEST, h.refused("PUT", "/v1/job/{id}/plan", Map.of("id", "web"),
                job("other")).code());
        // The matching ID is registered.
        h.call("PUT", "/v1/job/{id}", Map.of("id", "web"), job("web"));
        assertEquals("web", stored("web").id());
    }
}
