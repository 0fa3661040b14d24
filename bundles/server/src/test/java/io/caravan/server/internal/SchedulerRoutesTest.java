package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import org.junit.jupiter.api.Test;

/** {@code GET /v1/agent/schedulers}: Nomad's shape; a follower's workers are paused, a leader's report their work. */
class SchedulerRoutesTest {

    @Test
    void aFollowerListsItsConfiguredWorkersAsPaused() {
        SchedulerRoutes routes = new SchedulerRoutes(new ClusterRoutesTest.Agent(true, false),
                JobLimitsTest.config(100));
        JsonNode body = NomadJson.mapper().valueToTree(routes.info());
        assertEquals("s1.global", body.path("ServerID").asText());
        assertEquals(1, body.path("Schedulers").size());
        JsonNode worker = body.path("Schedulers").get(0);
        assertEquals("Paused", worker.path("Status").asText());
        assertEquals("Paused", worker.path("WorkloadStatus").asText());
        assertEquals(worker.path("ID").asText(), NomadJson.mapper().valueToTree(routes.info()).path("Schedulers")
                .get(0).path("ID").asText(), "the same ID on every call");
    }

    @Test
    void aLeadersWorkerSaysWhatItIsDoing() throws Exception {
        EvalBroker broker = new EvalBroker(Clock.systemUTC(), 2, Duration.ofSeconds(60), Duration.ofSeconds(1),
                e -> { }, e -> { });
        ServerState state = new ServerState();
        SchedulerWorker worker = new SchedulerWorker(0, broker, Set.of("service", "batch"), state.store(), null, null,
                Clock.systemUTC(), new WorkerTimings());
        try {
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!worker.info().workloadStatus().equals("WaitingToDequeue") && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            JsonNode info = NomadJson.mapper().valueToTree(worker.info());
            assertEquals("Started", info.path("Status").asText());
            assertEquals("WaitingToDequeue", info.path("WorkloadStatus").asText());
            assertEquals(List.of("batch", "service"), List.of(info.path("EnabledSchedulers").get(0).asText(),
                    info.path("EnabledSchedulers").get(1).asText()));
        } finally {
            worker.close();
            broker.close();
            state.deactivate();
        }
        assertEquals("Stopped", worker.info().status());
    }
}
