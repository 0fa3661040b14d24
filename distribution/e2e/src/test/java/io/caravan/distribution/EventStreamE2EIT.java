package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * {@code /v1/event/stream} against a real dev agent: a job register is seen as {@code JobRegistered},
 * {@code EvaluationUpdated} and {@code AllocationUpdated} in index order; a client that disconnects and resumes with
 * {@code index=} (its last index + 1) misses nothing and sees nothing twice, compared with a stream that stayed
 * connected; and an idle stream gets its {@code {}} heartbeat within Nomad's 10 seconds.
 */
class EventStreamE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOPICS = "topic=Job:ev&topic=Evaluation:ev&topic=Allocation:ev";

    /** One subscriber: its lines as they come, read on a thread of its own until closed. */
    static final class Stream implements AutoCloseable {
        final List<JsonNode> lines = new CopyOnWriteArrayList<>();
        private final InputStream body;
        private final Thread reader;

        Stream(String address, String query) throws IOException, InterruptedException {
            HttpResponse<InputStream> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(address + "/v1/event/stream?" + query)).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, response.statusCode());
            body = response.body();
            reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        lines.add(JSON.readTree(line));
                    }
                } catch (IOException e) {
                    // closed by the test
                }
            }, "event-stream-reader");
            reader.setDaemon(true);
            reader.start();
        }

        /** The lines that carry events (not heartbeats). */
        List<JsonNode> batches() {
            return lines.stream().filter(l -> l.has("Index")).toList();
        }

        List<Long> indexes() {
            return batches().stream().map(l -> l.get("Index").asLong()).toList();
        }

        boolean has(String topic, String type) {
            return batches().stream().flatMap(l -> {
                List<JsonNode> events = new ArrayList<>();
                l.get("Events").forEach(events::add);
                return events.stream();
            }).anyMatch(e -> e.path("Topic").asText().equals(topic) && e.path("Type").asText().equals(type));
        }

        boolean heartbeats() {
            return lines.stream().anyMatch(l -> l.isObject() && l.isEmpty());
        }

        @Override
        public void close() throws Exception {
            body.close();
            reader.interrupt();
            reader.join(5000);
        }
    }

    @Test
    void aJobsEventsArriveInOrderAResumeMissesNothingAndIdleStreamsHeartbeat() throws Exception {
        try (DevAgent dev = DevAgent.start("caravan-events-")) {
            AgentProcess agent = dev.agent();
            String address = agent.address();
            long opened = System.nanoTime();
            try (Stream reference = new Stream(address, TOPICS); Stream first = new Stream(address, TOPICS)) {
                var registered = agent.putForm("/v1/jobs", """
                        {"Job": {"ID": "ev", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g", "Count": 1,
                          "Tasks": [{"Name": "t", "Driver": "raw_exec",
                            "Config": {"command": "/bin/sleep", "args": ["300"]}}]}]}}
                        """);
                assertEquals(200, registered.statusCode(), registered.body());
                AgentProcess.await("JobRegistered, EvaluationUpdated and AllocationUpdated", WAIT,
                        () -> first.has("Job", "JobRegistered") && first.has("Evaluation", "EvaluationUpdated")
                                && first.has("Allocation", "AllocationUpdated"));
                assertAscending(first.indexes());
                long firstJob = firstIndexOf(first, "Job", "JobRegistered");
                assertTrue(firstJob < firstIndexOf(first, "Evaluation", "EvaluationUpdated"));
                assertTrue(firstIndexOf(first, "Evaluation", "EvaluationUpdated")
                        < firstIndexOf(first, "Allocation", "AllocationUpdated"));

                // Disconnect, change things meanwhile, resume from the index after the last one seen.
                first.close();
                List<Long> before = first.indexes();
                long last = before.get(before.size() - 1);
                assertEquals(200, agent.delete("/v1/job/ev").statusCode(), "stop the job");
                AgentProcess.await("the reference sees the deregister", WAIT,
                        () -> reference.has("Job", "JobDeregistered"));
                try (Stream resumed = new Stream(address, TOPICS + "&index=" + (last + 1))) {
                    AgentProcess.await("the resumed stream sees the deregister", WAIT,
                            () -> resumed.has("Job", "JobDeregistered"));
                    AgentProcess.await("the resumed stream catches up with the reference", WAIT, () -> {
                        List<Long> ref = reference.indexes();
                        List<Long> res = resumed.indexes();
                        return !res.isEmpty() && res.get(res.size() - 1) >= ref.get(ref.size() - 1);
                    });
                    List<Long> joined = new ArrayList<>(before);
                    joined.addAll(resumed.indexes());
                    List<Long> ref = reference.indexes();
                    int common = Math.min(joined.size(), ref.size());
                    assertTrue(common > before.size(), "the comparison reaches past the reconnect");
                    assertEquals(ref.subList(0, common), joined.subList(0, common),
                            "no gap and no duplicate across the reconnect");
                    assertAscending(joined);
                }

                // The reference stream has been open for a while; a heartbeat comes every 10 s.
                AgentProcess.await("a heartbeat", Duration.ofSeconds(12), reference::heartbeats);
                assertTrue(System.nanoTime() - opened > Duration.ofSeconds(10).toNanos()
                        || reference.heartbeats(), "a heartbeat within 10 s of idling");
            }
        }
    }

    private static void assertAscending(List<Long> indexes) {
        for (int i = 1; i < indexes.size(); i++) {
            assertTrue(indexes.get(i) > indexes.get(i - 1), "indexes ascend, each once: " + indexes);
        }
    }

    private static long firstIndexOf(Stream s, String topic, String type) {
        for (JsonNode line : s.batches()) {
            for (JsonNode e : line.get("Events")) {
                if (e.path("Topic").asText().equals(topic) && e.path("Type").asText().equals(type)) {
                    return line.get("Index").asLong();
                }
            }
        }
        throw new AssertionError("no " + topic + " " + type);
    }
}
