package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclToken;
import io.caravan.api.acl.Identity;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.state.RowChange;
import io.caravan.http.ApiResponse;
import io.caravan.http.BodyWriter;
import io.caravan.http.StreamingBody;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The event stream from a job register through the routes, as a client reads it. */
class EventStreamTest {
    private final RoutesHarness h = new RoutesHarness();
    private final EventBroker broker = new EventBroker(h.state, true, 100, Duration.ofMillis(200));
    private final List<Collector> open = new ArrayList<>();

    EventStreamTest() {
        h.add(new EventRoutes(broker, h.state));
    }

    @AfterEach
    void stop() {
        open.forEach(Collector::close);
        broker.deactivate();
        h.close();
    }

    /** A client: takes every write (or none, when {@code stalled}) and keeps the bytes. */
    static final class Collector implements BodyWriter {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        volatile boolean stalled;
        private volatile boolean closed;

        public boolean ready() {
            return !closed && !stalled;
        }

        public synchronized boolean write(byte[] b) throws IOException {
            if (closed) {
                throw new IOException("closed");
            }
            if (stalled) {
                return false;
            }
            bytes.write(b);
            return true;
        }

        public void close() {
            closed = true;
        }

        public boolean closed() {
            return closed;
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }

        /** The complete lines so far, parsed. */
        List<JsonNode> lines() throws IOException {
            String text = text();
            List<JsonNode> out = new ArrayList<>();
            int end = text.lastIndexOf('\n');
            if (end < 0) {
                return out;
            }
            for (String line : text.substring(0, end).split("\n")) {
                out.add(NomadJson.mapper().readTree(line));
            }
            return out;
        }

        /** Every event received, in order. */
        List<JsonNode> events() throws IOException {
            List<JsonNode> out = new ArrayList<>();
            for (JsonNode line : lines()) {
                line.path("Events").forEach(out::add);
            }
            return out;
        }
    }

    private Collector subscribe(Map<String, String> query, Identity identity) throws Exception {
        Map<String, String> params = new HashMap<>();
        query.forEach((k, v) -> params.put("?" + k, v));
        ApiResponse response = h.call("GET", "/v1/event/stream", params, null, identity);
        StreamingBody body = assertInstanceOf(StreamingBody.class, response.body());
        assertEquals("application/json", body.contentType());
        Collector client = new Collector();
        open.add(client);
        body.start(client);
        return client;
    }

    private Collector subscribe(Map<String, String> query) throws Exception {
        return subscribe(query, Identity.UNRESTRICTED);
    }

    private static void await(String what, Collector client, Predicate<Collector> done) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!done.test(client)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + "; got: " + client.text());
            }
            Thread.sleep(20);
        }
    }

    private static boolean has(Collector c, String type) {
        try {
            return c.events().stream().anyMatch(e -> e.path("Type").asText().equals(type));
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void aJobRegisterIsStreamedAsJobRegisteredThenEvaluationUpdatedInIndexOrder() throws Exception {
        Collector client = subscribe(Map.of("topic", "*"));
        h.call("PUT", "/v1/jobs", Map.of(), JobLifecycleTest.job("web"));
        h.schedule();
        await("EvaluationUpdated", client, c -> has(c, "EvaluationUpdated"));

        List<JsonNode> events = client.events();
        JsonNode job = events.get(0);
        assertEquals("Job", job.path("Topic").asText());
        assertEquals("JobRegistered", job.path("Type").asText());
        assertEquals("web", job.path("Key").asText());
        assertEquals("default", job.path("Namespace").asText());
        assertEquals("web", job.path("Payload").path("Job").path("ID").asText());
        // The register's evaluation is written by the same entry, so it carries the entry's type (as in Nomad).
        JsonNode eval = events.stream().filter(e -> e.path("Topic").asText().equals("Evaluation")).findFirst()
                .orElseThrow();
        assertEquals("JobRegistered", eval.path("Type").asText());
        assertEquals("web", eval.path("FilterKeys").get(0).asText());
        assertEquals(job.path("Index").asLong(), eval.path("Index").asLong());

        long previous = 0;
        for (JsonNode line : client.lines()) {
            if (line.isEmpty()) {
                continue; // a heartbeat
            }
            long index = line.path("Index").asLong();
            assertTrue(index > previous, "lines in index order: " + client.text());
            line.path("Events").forEach(e -> assertEquals(index, e.path("Index").asLong()));
            previous = index;
        }
    }

    @Test
    void resumingFromAnIndexReplaysFromThereWithoutGapsOrDuplicates() throws Exception {
        Collector first = subscribe(Map.of("topic", "Job"));
        h.call("PUT", "/v1/jobs", Map.of(), JobLifecycleTest.job("a"));
        h.call("PUT", "/v1/jobs", Map.of(), JobLifecycleTest.job("b"));
        h.call("PUT", "/v1/jobs", Map.of(), JobLifecycleTest.job("c"));
        await("three jobs", first, c -> {
            try {
                return c.events().size() == 3;
            } catch (IOException e) {
                return false;
            }
        });
        List<JsonNode> lines = first.lines();
        long second = lines.get(1).path("Index").asLong();

        Collector resumed = subscribe(Map.of("topic", "Job:*", "index", Long.toString(second)));
        await("the replay", resumed, c -> has(c, "JobRegistered") && c.text().contains("\"c\""));
        List<String> keys = resumed.events().stream().map(e -> e.path("Key").asText()).toList();
        assertEquals(List.of("b", "c"), keys, "from the given index on, each once");

        Collector keyed = subscribe(Map.of("topic", "Job:b"));
        await("job b", keyed, c -> c.text().contains("\"b\""));
        assertEquals(List.of("b"), keyed.events().stream().map(e -> e.path("Key").asText()).toList());
    }

    @Test
    void anIdleStreamGetsHeartbeats() throws Exception {
        Collector client = subscribe(Map.of("topic", "Node"));
        await("a heartbeat", client, c -> c.text().startsWith("{}\n"));
    }

    @Test
    void aConsumerTooSlowForTheBufferIsClosedAndDropped() throws Exception {
        EventBroker small = new EventBroker(h.state, false, 4, Duration.ofHours(1));
        try {
            EventSubscription sub = small.subscribe(EventFilter.of(List.of("*"), "*", Identity.UNRESTRICTED.acl()),
                    0, null);
            Collector client = new Collector();
            client.stalled = true;
            sub.start(client);
            for (long i = 1; i <= 10; i++) {
                small.publish(i, List.of(new Events.Event("Job", "JobRegistered", "j" + i, "default", null, i,
                        Map.of())));
            }
            await("the slow client closed", client, Collector::closed);
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (small.subscriberCount() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, small.subscriberCount());
        } finally {
            small.deactivate();
        }
    }

    @Test
    void aConsumerThatStallsMidStreamIsClosedOnceTheBufferMovesPastIt() throws Exception {
        EventBroker small = new EventBroker(h.state, false, 4, Duration.ofHours(1));
        try {
            EventSubscription sub = small.subscribe(EventFilter.of(List.of("Job"), "default",
                    Identity.UNRESTRICTED.acl()), 0, null);
            Collector client = new Collector();
            sub.start(client);
            small.publish(1, List.of(new Events.Event("Job", "JobRegistered", "j1", "default", null, 1, Map.of())));
            await("the first batch", client, c -> c.text().contains("\"j1\""));
            client.stalled = true;
            for (long i = 2; i <= 20; i++) {
                small.publish(i, List.of(new Events.Event("Job", "JobRegistered", "j" + i, "default", null, i,
                        Map.of())));
                Thread.sleep(5);
            }
            await("the stalled client closed", client, Collector::closed);
            assertFalse(client.text().contains("\"j20\""), "nothing was taken after the stall");
        } finally {
            small.deactivate();
        }
    }

    @Test
    void payloadsCarryNoSecretsAndAllocationsNoJob() throws Exception {
        AclToken token = new AclToken("acc-9", "the-secret", "t", "client", List.of("p"), List.of(), false,
                Instant.now(), null, null, 1, 1);
        Node node = NomadJson.internalMapper().readValue("{\"ID\":\"n1\",\"SecretID\":\"node-secret\"}",
                Node.class);
        Allocation alloc = NomadJson.internalMapper().readValue("{\"ID\":\"a1\",\"Namespace\":\"default\","
                + "\"JobID\":\"web\",\"Job\":{\"ID\":\"web\",\"Name\":\"web-job-body\"}}", Allocation.class);
        List<Events.Event> events = Events.of(7, new Command.AclTokenUpsert(List.of(token)), List.of(
                new RowChange(NomadTables.ACL_TOKENS.name(), "acc-9", null, token),
                new RowChange(NomadTables.NODES.name(), "n1", null, node),
                new RowChange(NomadTables.ALLOCS.name(), "a1", null, alloc),
                new RowChange("applied_requests", "r", null, "not an event")));
        assertEquals(List.of("ACLToken", "Node", "Allocation"), events.stream().map(Events.Event::topic).toList());
        assertTrue(events.stream().allMatch(e -> e.type().equals("ACLTokenUpserted") && e.index() == 7));
        String json = NomadJson.writer(false).writeValueAsString(events);
        assertFalse(json.contains("the-secret"), json);
        assertFalse(json.contains("node-secret"), json);
        assertFalse(json.contains("web-job-body"), json);
        assertEquals(List.of("web", ""), events.get(2).filterKeys());
        assertTrue(Events.of(8, new Command.NamespaceDelete(List.of("x"), null), List.of(
                new RowChange(NomadTables.NODES.name(), "n1", node, null))).isEmpty(),
                "a command Nomad publishes nothing for gives no events");
    }

    @Test
    void topicsNeedTheirAclsAndNamespacedEventsAreFilteredPerNamespace() throws Exception {
        CaravanException denied = RoutesHarnessRefusal.refused(() -> subscribe(Map.of("topic", "ACLToken"),
                RouteAclTest.DEV));
        assertEquals(ErrorCode.PERMISSION_DENIED, denied.code());
        assertEquals(ErrorCode.PERMISSION_DENIED, RoutesHarnessRefusal.refused(() -> subscribe(Map.of(),
                RouteAclTest.DEV)).code(), "no topic: every topic, management only");
        assertEquals(ErrorCode.BAD_REQUEST, RoutesHarnessRefusal.refused(() -> subscribe(Map.of("topic", "Jobs"))).code());

        EventFilter all = EventFilter.of(List.of("Job:*", "Node"), "*", RouteAclTest.DEV_ONLY);
        assertTrue(all.matches(new Events.Event("Job", "JobRegistered", "x", "dev", null, 1, Map.of())));
        assertFalse(all.matches(new Events.Event("Job", "JobRegistered", "x", "prod", null, 1, Map.of())));
        assertTrue(all.matches(new Events.Event("Node", "NodeRegistration", "n", "", null, 1, Map.of())));
        assertFalse(all.matches(new Events.Event("Evaluation", "EvaluationUpdated", "e", "dev", null, 1, Map.of())));
        EventFilter dev = EventFilter.of(List.of("Allocation:web"), "dev", RouteAclTest.DEV_ONLY);
        assertTrue(dev.matches(new Events.Event("Allocation", "PlanResult", "a1", "dev", List.of("web", ""), 1,
                Map.of())), "a key matches a filter key (the job)");
        assertFalse(dev.matches(new Events.Event("Allocation", "PlanResult", "a1", "dev", List.of("api", ""), 1,
                Map.of())));
    }

    @Test
    void aTokensStreamEndsWhenTheTokenIsDeletedOrExpires() throws Exception {
        AclToken token = new AclToken("acc-1", "secret-1", "t", "client", List.of("readonly"), List.of(), false,
                Instant.now(), null, null, 1, 1);
        EventBroker.TokenWatch watch = EventBroker.TokenWatch.of(token);
        assertTrue(watch.affectedBy(new Events.Event("ACLToken", "ACLTokenDeleted", "acc-1", "", null, 1, Map.of())));
        assertTrue(watch.affectedBy(new Events.Event("ACLPolicy", "ACLPolicyUpserted", "readonly", "", null, 1,
                Map.of())));
        assertFalse(watch.affectedBy(new Events.Event("ACLPolicy", "ACLPolicyUpserted", "other", "", null, 1,
                Map.of())));

        EventSubscription sub = broker.subscribe(EventFilter.of(List.of("Job"), "default",
                Identity.UNRESTRICTED.acl()), 0, watch);
        Collector client = new Collector();
        open.add(client);
        sub.start(client);
        broker.publish(h.state.store().latestIndex() + 1, List.of(new Events.Event("ACLToken", "ACLTokenDeleted",
                "acc-1", "", null, 1, Map.of())));
        await("the stream closed", client, Collector::closed);
        assertTrue(client.text().endsWith(EventSubscription.CLOSED), client.text());

        AclToken expired = new AclToken("acc-2", "secret-2", "t", "client", List.of(), List.of(), false,
                Instant.now().minusSeconds(60), Instant.now().minusSeconds(1), null, 1, 1);
        EventSubscription late = broker.subscribe(EventFilter.of(List.of("Job"), "default",
                Identity.UNRESTRICTED.acl()), 0, EventBroker.TokenWatch.of(expired));
        Collector second = new Collector();
        open.add(second);
        late.start(second);
        await("the expired token's stream closed", second, Collector::closed);
    }

    /** The refusal a handler throws, synchronously or through its stage. */
    static final class RoutesHarnessRefusal {
        interface Call {
            Object run() throws Exception;
        }

        static CaravanException refused(Call call) {
            try {
                call.run();
            } catch (CaravanException e) {
                return e;
            } catch (Exception e) {
                if (e.getCause() instanceof CaravanException c) {
                    return c;
                }
                throw new AssertionError("not a refusal", e);
            }
            throw new AssertionError("not refused");
        }
    }
}
