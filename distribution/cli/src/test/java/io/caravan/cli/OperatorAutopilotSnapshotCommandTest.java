package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code operator autopilot get-config|set-config|health} against a fake agent; {@code operator snapshot inspect}. */
class OperatorAutopilotSnapshotCommandTest extends FakeAgentTest {
    private static final String CONFIG_PATH = "/v1/operator/autopilot/configuration";
    private static final String CONFIG = """
            {"CleanupDeadServers":true,"LastContactThreshold":"200ms","MaxTrailingLogs":250,"MinQuorum":0,
             "ServerStabilizationTime":"10s","EnableRedundancyZones":false,"DisableUpgradeMigration":false,
             "EnableCustomUpgrades":false,"CreateIndex":4,"ModifyIndex":9}""";

    @TempDir
    Path dir;

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address());
    }

    @Test
    void getConfigPrintsEachField() {
        agent.json(CONFIG_PATH, CONFIG);
        Cli.Result r = Cli.run(env, "operator", "autopilot", "get-config");
        assertEquals(0, r.code(), r.err());
        assertEquals("""
                CleanupDeadServers = true
                LastContactThreshold = 200ms
                MaxTrailingLogs = 250
                MinQuorum = 0
                ServerStabilizationTime = 10s
                EnableRedundancyZones = false
                DisableUpgradeMigration = false
                EnableCustomUpgrades = false
                """, r.out());
    }

    @Test
    void setConfigChecksAndSetsOnTheModifyIndex() throws Exception {
        agent.sequence(CONFIG_PATH, CONFIG, "true");
        Cli.Result r = Cli.run(env, "operator", "autopilot", "set-config", "-cleanup-dead-servers=false",
                "-min-quorum", "3", "-last-contact-threshold", "1s");
        assertEquals(0, r.code(), r.err());
        assertEquals("Configuration updated!\n", r.out());
        FakeAgent.Request put = agent.last(CONFIG_PATH);
        assertEquals("PUT", put.method());
        assertEquals("cas=9", put.query());
        JsonNode body = new ObjectMapper().readTree(put.body());
        assertEquals(false, body.get("CleanupDeadServers").asBoolean());
        assertEquals(3, body.get("MinQuorum").asInt());
        assertEquals("1s", body.get("LastContactThreshold").asText());
        assertEquals(250, body.get("MaxTrailingLogs").asInt());

        agent.sequence(CONFIG_PATH, CONFIG, "false");
        Cli.Result lost = Cli.run(env, "operator", "autopilot", "set-config", "-max-trailing-logs", "10");
        assertEquals(1, lost.code());
        assertEquals("Configuration could not be atomically updated, please try again\n", lost.out());
    }

    @Test
    void healthIsShownEvenWhenTheAgentAnswers429() {
        agent.reply("/v1/operator/autopilot/health", 429, """
                {"Healthy":false,"FailureTolerance":0,"Servers":[
                 {"ID":"a","Name":"one.global","Address":"10.0.0.1:4647","SerfStatus":"alive","Version":"1.9.0",
                  "Leader":true,"LastContact":"0s","LastTerm":3,"LastIndex":40,"Healthy":true,"Voter":true,
                  "StableSince":"2026-01-01T00:00:00Z"},
                 {"ID":"b","Name":"two.global","Address":"10.0.0.2:4647","SerfStatus":"failed","Version":"1.9.0",
                  "Leader":false,"LastContact":"9s","LastTerm":0,"LastIndex":12,"Healthy":false,"Voter":true,
                  "StableSince":"0001-01-01T00:00:00Z"}]}""");
        Cli.Result r = Cli.run(env, "operator", "autopilot", "health");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("Healthy: false\nFailureTolerance: 0\n"), r.out());
        assertTrue(r.out().contains("two.global") && r.out().contains("failed"), r.out());
    }

    @Test
    void inspectShowsTheMetadataOfAVerifiedFileAndRefusesAnAlteredOne() throws Exception {
        byte[] state = "the state".getBytes(StandardCharsets.UTF_8);
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(state));
        String meta = "{\"Version\":1,\"ID\":\"12-1700000000000\",\"Index\":12,\"Term\":2,\"CreatedMillis\":1,"
                + "\"Size\":" + state.length + ",\"SHA256\":\"" + sha + "\",\"Tables\":{\"jobs\":3,\"nodes\":1}}";
        Path file = dir.resolve("s.snap");
        Files.write(file, ("caravan-snapshot 1\n" + meta + "\nthe state").getBytes(StandardCharsets.UTF_8));
        Cli.Result r = Cli.run(env, "operator", "snapshot", "inspect", file.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("Index    = 12") && r.out().contains("Term     = 2"), r.out());
        assertTrue(r.out().matches("(?s).*jobs\\s+3\\n.*Total\\s+4\\n"), r.out());

        Files.write(file, ("caravan-snapshot 1\n" + meta + "\nthe statE").getBytes(StandardCharsets.UTF_8));
        Cli.Result altered = Cli.run(env, "operator", "snapshot", "inspect", file.toString());
        assertEquals(1, altered.code());
        assertTrue(altered.err().contains("checksum mismatch"), altered.err());
    }
}
