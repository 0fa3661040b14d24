package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.json.NomadJson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code scaling { min, max }} enforced by {@code PUT /v1/job/:id/scale}, and the events it keeps. */
class ScalingTest {
    private final RoutesHarness h = new RoutesHarness();

    @AfterEach
    void stop() {
        h.close();
    }

    private void register(String scaling) throws Exception {
        ObjectNode body = (ObjectNode) JobLifecycleTest.job("web");
        ObjectNode group = (ObjectNode) body.path("Job").path("TaskGroups").get(0);
        group.put("Count", 3).remove("Constraints");
        if (scaling != null) {
            group.set("Scaling", RoutesHarness.json(scaling));
        }
        h.call("PUT", "/v1/jobs", Map.of(), body);
    }

    private static JsonNode scale(Long count, String message) {
        ObjectNode req = NomadJson.mapper().createObjectNode();
        if (count != null) {
            req.put("Count", count);
        }
        req.putObject("Target").put("Group", "web");
        req.put("Message", message);
        return req;
    }

    private JsonNode status() throws Exception {
        return NomadJson.mapper().valueToTree(h.call("GET", "/v1/job/{id}/scale", Map.of("id", "web"), null).body());
    }

    private int count() {
        return h.snapshot().get(NomadTables.JOBS, NomadTables.key("default", "web")).orElseThrow().taskGroups().get(0)
                .count();
    }

    @Test
    void aCountOutsideTheBoundsIsA400NamingThemAndChangesNothing() throws Exception {
        register("{\"Min\": 2, \"Max\": 5}");
        long before = h.writes.get();
        CaravanException high = h.refused("PUT", "/v1/job/{id}/scale", Map.of("id", "web"), scale(6L, "up"));
        assertEquals(ErrorCode.BAD_REQUEST, high.code());
        assertEquals("group count was greater than scaling policy maximum: 6 > 5", high.getMessage());
        CaravanException low = h.refused("PUT", "/v1/job/{id}/scale", Map.of("id", "web"), scale(1L, "down"));
        assertEquals("group count was less than scaling policy minimum: 1 < 2", low.getMessage());
        assertEquals(before, h.writes.get(), "nothing written");
        assertEquals(3, count());
        // The bounds themselves are fine.
        h.call("PUT", "/v1/job/{id}/scale", Map.of("id", "web"), scale(5L, "max"));
        h.call("PUT", "/v1/job/{id}/scale", Map.of("id", "web"), scale(2L, "min"));
        assertEquals(2, count());
    }

    @Test
    void withoutAMinimumTheRegisteredCountIsTheMinimumAsInNomad() throws Exception {
        register("{\"Max\": 10}");
        assertEquals("group count was less than scaling policy minimum: 2 < 3", h.refused("PUT",
                "/v1/job/{id}/scale", Map.of("id", "web"), scale(2L, "")).getMessage());
    }

    @Test
    void eventsAreKeptNewestFirstBoundedAndServed() throws Exception {
        register("{\"Min\": 0, \"Max\": 50}");
        h.call("PUT", "/v1/job/{id}/scale", Map.of("id", "web"), scale(4L, "first"));
        ObjectNode note = (ObjectNode) scale(null, "autoscaler could not reach metrics");
        note.put("Error", true).putObject("Meta").put("source", "prometheus");
        h.call("PUT", "/v1/job/{id}/scale", Map.of("id", "web"), note);
        assertEquals(4, count(), "an event without a count changes no count");

        JsonNode events = status().path("TaskGroups").path("web").path("Events");
        assertEquals(2, events.size(), events.toString());
        assertEquals("autoscaler could not reach metrics", events.get(0).path("Message").asText());
        assertTrue(events.get(0).path("Error").asBoolean());
        assertTrue(events.get(0).path("Count").isNull() || events.get(0).path("Count").isMissingNode());
        assertEquals("prometheus", events.get(0).path("Meta").path("source").asText());
        assertEquals(4, events.get(0).path("PreviousCount").asLong());
        assertEquals("first", events.get(1).path("Message").asText());
        assertEquals(4, events.get(1).path("Count").asLong());
        assertEquals(3, events.get(1).path("PreviousCount").asLong());
        assertTrue(!events.get(1).path("EvalID").asText().isEmpty());
        assertTrue(events.get(1).path("Time").asLong() > 0);
        assertTrue(events.get(0).path("CreateIndex").asLong() > events.get(1).path("CreateIndex").asLong());

        for (int i = 0; i < ScalingEvents.TRACKED + 5; i++) {
            h.call("PUT", "/v1/job/{id}/scale", Map.of("id", "web"), scale(null, "note " + i));
        }
        events = status().path("TaskGroups").path("web").path("Events");
        assertEquals(ScalingEvents.TRACKED, events.size());
        assertEquals("note " + (ScalingEvents.TRACKED + 4), events.get(0).path("Message").asText());

        h.call("DELETE", "/v1/job/{id}", Map.of("id", "web", "?purge", "true"), null);
        assertTrue(h.snapshot().get(NomadTables.SCALING_EVENTS, NomadTables.key("default", "web")).isEmpty(),
                "purged with the job");
    }

    @Test
    void aCountWithAnErrorIsRefused() throws Exception {
        register(null);
        ObjectNode req = (ObjectNode) scale(2L, "x");
        req.put("Error", true);
        assertEquals("Count: scaling action should not contain count if error is true",
                h.refused("PUT", "/v1/job/{id}/scale", Map.of("id", "web"), req).getMessage());
    }
}
