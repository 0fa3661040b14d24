package io.caravan.api.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.api.json.NomadJson;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

class JobJsonTest {
    private static final ObjectMapper MAPPER = NomadJson.mapper();

    private static JsonNode example() throws Exception {
        try (InputStream in = JobJsonTest.class.getResourceAsStream("job-web.json")) {
            return MAPPER.readTree(in).get("Job");
        }
    }

    @Test
    void referenceJobRoundTrips() throws Exception {
        Job job = MAPPER.treeToValue(example(), Job.class);
        String written = MAPPER.writeValueAsString(job);
        Job again = MAPPER.readValue(written, Job.class);
        assertEquals(job, again);
        assertEquals(written, MAPPER.writeValueAsString(again));
    }

    @Test
    void everyInputValueSurvivesOnOutput() throws Exception {
        JsonNode input = example();
        JsonNode output = MAPPER.valueToTree(MAPPER.treeToValue(input, Job.class));
        assertSubset(input, output, "Job");
    }

    @Test
    void richJobRoundTripsAndKeepsIrregularNames() throws Exception {
        JsonNode input;
        try (InputStream in = JobJsonTest.class.getResourceAsStream("job-rich.json")) {
            input = MAPPER.readTree(in);
        }
        Job job = MAPPER.treeToValue(input, Job.class);
        JsonNode out = MAPPER.valueToTree(job);
        assertSubset(input, out, "Job");
        assertEquals(job, MAPPER.treeToValue(out, Job.class));

        TaskGroup group = job.taskGroups().get(0);
        Task task = group.tasks().get(0);
        assertEquals(Duration.ofHours(1), group.disconnect().lostAfter());
        assertEquals(Duration.ofSeconds(2), task.templates().get(0).waitConfig().min());
        assertEquals("health", group.services().get(0).checks().get(0).grpcService());
        assertEquals(List.of("1", "2"), group.services().get(0).checks().get(0).header().get("X-A"));
        assertEquals("z", task.volumeMounts().get(0).seLinuxLabel());
        assertEquals(8080, group.networks().get(0).reservedPorts().get(0).value());
        assertEquals(-1, group.networks().get(0).dynamicPorts().get(0).to());
        assertEquals(70, job.spreads().get(0).spreadTarget().get(0).percent());
        assertEquals(List.of("a", "b"), List.copyOf(job.meta().keySet()));
        assertEquals(1L, task.resources().devices().get(0).count());
        assertTrue(task.leader());
        assertEquals(TaskLifecycle.HOOK_PRESTART, task.lifecycle().hook());
        assertEquals(java.util.Arrays.asList(1, 2.5, true, null), ((Map<?, ?>) task.config().get("nested")).get("k"));
        JsonNode outTask = out.get("TaskGroups").get(0).get("Tasks").get(0);
        assertEquals(10_000_000_000L, outTask.get("Templates").get(0).get("Wait").get("Max").asLong());
        assertTrue(out.get("TaskGroups").get(0).get("Services").get(0).get("Checks").get(0).get("GRPCUseTLS").asBoolean());
        assertEquals("tok-1", out.get("NomadTokenID").asText());
        assertEquals("fail_all", out.get("Multiregion").get("Strategy").get("OnFailure").asText());
    }

    @Test
    void spotChecks() throws Exception {
        Job job = MAPPER.treeToValue(example(), Job.class);
        Task task = job.taskGroups().get(0).tasks().get(0);
        assertEquals(300, task.resources().memoryMb());
        assertEquals(100, task.resources().cpu());
        assertEquals(Duration.ofSeconds(5), task.killTimeout());
        assertEquals(1, job.update().maxParallel());
        assertEquals(Duration.ofSeconds(30), job.update().stagger());
        assertEquals("${attr.kernel.name}", job.constraints().get(0).lTarget());
        assertEquals("linux", job.constraints().get(0).rTarget());
        assertEquals(List.of("-m", "http.server", "${NOMAD_PORT_http}"), task.config().get("args"));
        assertEquals(Duration.ofMinutes(30), job.taskGroups().get(0).restartPolicy().interval());
        assertEquals(Duration.ofSeconds(10), job.taskGroups().get(0).services().get(0).checks().get(0).interval());

        JsonNode out = MAPPER.valueToTree(job);
        JsonNode outTask = out.get("TaskGroups").get(0).get("Tasks").get(0);
        assertEquals(300, outTask.get("Resources").get("MemoryMB").asInt());
        assertTrue(outTask.get("KillTimeout").isIntegralNumber());
        assertEquals(5_000_000_000L, outTask.get("KillTimeout").asLong());
        assertEquals(1, out.get("Update").get("MaxParallel").asInt());
        assertEquals("${attr.kernel.name}", out.get("Constraints").get(0).get("LTarget").asText());
        assertTrue(out.get("TaskGroups").get(0).get("Networks").get(0).has("MBits"));
        assertTrue(out.get("TaskGroups").get(0).get("Networks").get(0).has("CIDR"));
        assertTrue(outTask.get("Resources").has("IOPS"));
        assertTrue(outTask.has("CSIPluginConfig"));
        assertTrue(out.has("NomadTokenID"));
        assertTrue(out.has("UI"));
    }

    @Test
    void inputIsCaseInsensitiveAndIgnoresUnknownFields() throws Exception {
        Job job = MAPPER.readValue("""
                {"id": "x", "TYPE": "batch", "priority": 70, "NoSuchField": {"a": 1},
                 "taskgroups": [{"NAME": "g", "count": 3, "tasks": [{"name": "t", "killtimeout": 1000, "resources": {"memorymb": 64}}]}]}
                """, Job.class);
        assertEquals("x", job.id());
        assertEquals(Job.TYPE_BATCH, job.type());
        assertEquals(70, job.priority());
        assertEquals("g", job.taskGroups().get(0).name());
        assertEquals(3, job.taskGroups().get(0).count());
        assertEquals(Duration.ofNanos(1000), job.taskGroups().get(0).tasks().get(0).killTimeout());
        assertEquals(64, job.taskGroups().get(0).tasks().get(0).resources().memoryMb());
    }

    @Test
    void durationsAcceptGoStringsAndNumericStrings() throws Exception {
        Task task = MAPPER.readValue("{\"KillTimeout\": \"1m30s\", \"ShutdownDelay\": \"250\"}", Task.class);
        assertEquals(Duration.ofSeconds(90), task.killTimeout());
        assertEquals(Duration.ofNanos(250), task.shutdownDelay());
        assertThrows(Exception.class, () -> MAPPER.readValue("{\"KillTimeout\": \"soon\"}", Task.class));
    }

    @Test
    void unsetPointerFieldsStayNull() throws Exception {
        Job job = MAPPER.readValue("{\"ID\": \"x\"}", Job.class);
        assertNull(job.priority());
        assertNull(job.stop());
        assertNull(job.update());
        assertNull(job.periodic());
        assertNull(job.multiregion());
        JsonNode out = MAPPER.valueToTree(job);
        assertTrue(out.get("Priority").isNull());
        assertTrue(out.get("Update").isNull());
    }

    @Test
    void emptyCollectionsAreWrittenAsEmptyNotNull() throws Exception {
        JsonNode job = MAPPER.valueToTree(MAPPER.readValue("{\"ID\": \"x\", \"Datacenters\": null, \"TaskGroups\": [{\"Tasks\": [{}]}]}", Job.class));
        for (String key : List.of("Datacenters", "Constraints", "Affinities", "Spreads", "TaskGroups")) {
            assertTrue(job.get(key).isArray(), key);
        }
        assertEquals(0, job.get("Datacenters").size());
        assertEquals("[]", job.get("Constraints").toString());
        assertEquals("{}", job.get("Meta").toString());
        JsonNode task = job.get("TaskGroups").get(0).get("Tasks").get(0);
        assertEquals("[]", task.get("Templates").toString());
        assertEquals("{}", task.get("Config").toString());
        assertTrue(task.get("Resources").isNull());
        assertTrue(task.get("Vault").isNull());
        String compact = MAPPER.writeValueAsString(MAPPER.readValue("{}", Job.class));
        assertTrue(compact.contains("\"TaskGroups\":[]"), compact);
    }

    @Test
    void recordsAreImmutableAndNullTolerant() throws Exception {
        Job job = MAPPER.treeToValue(example(), Job.class);
        assertThrows(UnsupportedOperationException.class, () -> job.taskGroups().add(null));
        assertThrows(UnsupportedOperationException.class, () -> job.meta().put("k", "v"));
        @SuppressWarnings("unchecked")
        List<Object> args = (List<Object>) job.taskGroups().get(0).tasks().get(0).config().get("args");
        assertThrows(UnsupportedOperationException.class, () -> args.add("x"));
        Task task = MAPPER.readValue("{\"Config\": {\"image\": null, \"nested\": {\"b\": 1, \"a\": [null]}}}", Task.class);
        assertTrue(task.config().containsKey("image"));
        assertEquals(List.of("a", "b"), List.copyOf(((Map<?, ?>) task.config().get("nested")).keySet()));
        assertEquals(List.of(), new Spread("a", 50, null).spreadTarget());
    }

    @Test
    void withersChangeOnlyServerFields() throws Exception {
        Job job = MAPPER.treeToValue(example(), Job.class);
        Job updated = job.withStatus(Job.STATUS_RUNNING, "").withVersion(3).withIndexes(10, 12, 11)
                .withSubmitTime(1_700_000_000_000_000_000L).withStop(true).withStable(true);
        assertEquals(Job.STATUS_RUNNING, updated.status());
        assertEquals(3L, updated.version());
        assertEquals(10L, updated.createIndex());
        assertEquals(12L, updated.modifyIndex());
        assertEquals(11L, updated.jobModifyIndex());
        assertEquals(1_700_000_000_000_000_000L, updated.submitTime());
        assertTrue(updated.stop());
        assertTrue(updated.stable());
        assertEquals(job.taskGroups(), updated.taskGroups());
        com.fasterxml.jackson.databind.node.ObjectNode before = MAPPER.valueToTree(job);
        com.fasterxml.jackson.databind.node.ObjectNode after = MAPPER.valueToTree(updated);
        List<String> serverFields = List.of("Status", "StatusDescription", "Version", "CreateIndex", "ModifyIndex",
                "JobModifyIndex", "SubmitTime", "Stop", "Stable");
        before.remove(serverFields);
        after.remove(serverFields);
        assertEquals(before, after);
    }

    @Test
    void payloadIsBase64OnTheWire() throws Exception {
        Job job = MAPPER.readValue("{\"Payload\": \"aGVsbG8=\"}", Job.class);
        assertEquals("hello", new String(job.decodePayload(), java.nio.charset.StandardCharsets.UTF_8));
        assertEquals("aGVsbG8=", MAPPER.valueToTree(job).get("Payload").asText());
        assertFalse(MAPPER.valueToTree(job).has("DecodePayload"));
    }

    @Test
    void listStubCopiesNomadsStubFields() throws Exception {
        Job job = MAPPER.treeToValue(example(), Job.class).withVersion(2).withIndexes(5, 7, 6);
        JobSummary summary = new JobSummary("web", "default", Map.of("app", new TaskGroupSummary(0, 0, 0, 2, 0, 0, 0)), null, 5, 7);
        JobListStub stub = JobListStub.of(job, summary);
        assertEquals(50, stub.priority());
        assertFalse(stub.periodic());
        assertEquals(7, stub.modifyIndex());
        JsonNode out = MAPPER.valueToTree(stub);
        assertEquals(2, out.get("JobSummary").get("Summary").get("app").get("Running").asInt());
        assertEquals(0, out.get("JobSummary").get("Children").get("Dead").asInt());
        assertEquals(MAPPER.readValue(MAPPER.writeValueAsString(stub), JobListStub.class), stub);
    }

    /** Every input value is on the output; a null collection may come back empty (the records' convention). */
    private static void assertSubset(JsonNode expected, JsonNode actual, String path) {
        if (expected.isNull() && actual.isContainerNode()) {
            assertEquals(0, actual.size(), path);
        } else if (expected.isObject()) {
            assertTrue(actual.isObject(), path);
            for (Iterator<Map.Entry<String, JsonNode>> it = expected.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                assertTrue(actual.has(e.getKey()), path + "." + e.getKey() + " missing in " + actual);
                assertSubset(e.getValue(), actual.get(e.getKey()), path + "." + e.getKey());
            }
        } else if (expected.isArray()) {
            assertEquals(expected.size(), actual.size(), path);
            for (int i = 0; i < expected.size(); i++) {
                assertSubset(expected.get(i), actual.get(i), path + "[" + i + "]");
            }
        } else if (expected.isNumber()) {
            assertTrue(actual.isNumber(), path);
            assertEquals(expected.decimalValue().compareTo(actual.decimalValue()), 0, path);
        } else {
            assertEquals(expected, actual, path);
        }
    }
}
