package io.caravan.api.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.api.json.NomadJson;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

class NodeJsonTest {
    private static final ObjectMapper MAPPER = NomadJson.mapper();

    private static final String NODE = """
            {"ID": "n1", "SecretID": "s3cr3t", "Name": "client-1", "Datacenter": "dc1", "HTTPAddr": "10.0.0.5:4646",
             "Attributes": {"nomad.version": "1.9.0", "os.name": "ubuntu", "kernel.name": "linux"},
             "NodeResources": {"Cpu": {"CpuShares": 8000, "TotalCpuCores": 4, "ReservableCpuCores": [0, 1, 2, 3]},
                               "Memory": {"MemoryMB": 16000}, "Disk": {"DiskMB": 100000},
                               "MinDynamicPort": 20000, "MaxDynamicPort": 32000},
             "ReservedResources": {"Cpu": {"CpuShares": 100}, "Memory": {"MemoryMB": 256},
                                   "Networks": {"ReservedHostPorts": "22"}},
             "Drivers": {"raw_exec": {"Detected": true, "Healthy": true, "HealthDescription": "Healthy",
                                      "UpdateTime": "2024-05-01T10:00:00.123456789Z"}},
             "DrainStrategy": {"Deadline": 3600000000000, "IgnoreSystemJobs": true,
                               "ForceDeadline": "2024-05-01T11:00:00Z", "StartedAt": "2024-05-01T10:00:00+02:00"},
             "SchedulingEligibility": "ineligible", "Status": "ready", "StatusUpdatedAt": 1714557600,
             "Events": [{"Message": "Node registered", "Subsystem": "Cluster", "Timestamp": "2024-05-01T10:00:00Z", "CreateIndex": 3}],
             "Drain": false, "CreateIndex": 3, "ModifyIndex": 9}
            """;

    @Test
    void secretIdIsReadButNeverWritten() throws Exception {
        Node node = MAPPER.readValue(NODE, Node.class);
        assertEquals("s3cr3t", node.secretId());
        String out = MAPPER.writeValueAsString(node);
        assertFalse(out.contains("SecretID"), out);
        assertFalse(out.contains("s3cr3t"), out);
        assertFalse(NomadJson.writer(true).writeValueAsString(node).contains("s3cr3t"));
    }

    @Test
    void drainBooleanIsDerivedFromTheStrategy() throws Exception {
        Node node = MAPPER.readValue(NODE, Node.class);
        JsonNode out = MAPPER.valueToTree(node);
        assertTrue(out.get("Drain").isBoolean());
        assertTrue(out.get("Drain").asBoolean(), "the input's stale Drain=false is ignored");
        Node undrained = node.withDrain(null, null);
        assertFalse(MAPPER.valueToTree(undrained).get("Drain").asBoolean());
        assertFalse(MAPPER.readValue("{\"Drain\": true}", Node.class).drain());
    }

    @Test
    void nodeRoundTripsWithSecretKeptInMemoryOnly() throws Exception {
        Node node = MAPPER.readValue(NODE, Node.class);
        Node again = MAPPER.readValue(MAPPER.writeValueAsString(node), Node.class);
        assertEquals(null, again.secretId());
        assertEquals(node.withIndexes(node.createIndex(), node.modifyIndex()), node);
        assertEquals(MAPPER.writeValueAsString(node), MAPPER.writeValueAsString(again));
    }

    @Test
    void timesAndDurations() throws Exception {
        Node node = MAPPER.readValue(NODE, Node.class);
        assertEquals(Duration.ofHours(1), node.drainStrategy().deadline());
        assertEquals(Instant.parse("2024-05-01T08:00:00Z"), node.drainStrategy().startedAt());
        JsonNode out = MAPPER.valueToTree(node);
        assertEquals("2024-05-01T08:00:00Z", out.get("DrainStrategy").get("StartedAt").asText());
        assertEquals("2024-05-01T10:00:00.123456789Z", out.get("Drivers").get("raw_exec").get("UpdateTime").asText());
        assertEquals(3_600_000_000_000L, out.get("DrainStrategy").get("Deadline").asLong());
        assertEquals(1714557600L, out.get("StatusUpdatedAt").asLong());
        assertEquals(8000, out.get("NodeResources").get("Cpu").get("CpuShares").asInt());
        assertEquals(4, out.get("NodeResources").get("Cpu").get("TotalCpuCores").asInt());
        assertEquals(100, out.get("ReservedResources").get("Cpu").get("CpuShares").asInt());
        AllocDeploymentStatus status = new AllocDeploymentStatus(true, Instant.parse("2024-05-01T10:00:00.500Z"), false, 4);
        assertEquals("2024-05-01T10:00:00.5Z", MAPPER.valueToTree(status).get("Timestamp").asText());
    }

    @Test
    void withersAndReady() throws Exception {
        Node node = MAPPER.readValue(NODE, Node.class);
        assertFalse(node.ready());
        Node ready = node.withDrain(null, null).withSchedulingEligibility(Node.ELIGIBLE);
        assertTrue(ready.ready());
        Node down = ready.withStatus(Node.STATUS_DOWN, "missed heartbeats", 1714557700).withIndexes(3, 20);
        assertEquals(Node.STATUS_DOWN, down.status());
        assertEquals(1714557700, down.statusUpdatedAt());
        assertEquals(20, down.modifyIndex());
        assertEquals("s3cr3t", down.secretId());
    }

    @Test
    void listStub() throws Exception {
        Node node = MAPPER.readValue(NODE, Node.class);
        NodeListStub stub = NodeListStub.of(node, false, false);
        assertEquals("10.0.0.5", stub.address());
        assertEquals("1.9.0", stub.version());
        assertTrue(stub.drain());
        JsonNode out = MAPPER.valueToTree(stub);
        assertTrue(out.get("Drain").asBoolean());
        assertEquals("{}", out.get("Attributes").toString());
        assertTrue(out.get("NodeResources").isNull());
        assertEquals("ubuntu", NodeListStub.of(node, true, true).attributes().get("os.name"));
    }
}
