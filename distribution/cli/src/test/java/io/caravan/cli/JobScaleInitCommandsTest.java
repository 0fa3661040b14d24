package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import io.caravan.jobspec.JobspecParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code job scale}, {@code job init}, and {@code job validate|plan} without an agent. */
class JobScaleInitCommandsTest extends FakeAgentTest {

    @Test
    void scaleSendsTheGroupAndCountAndTakesTheOnlyGroupWhenNoneIsNamed() throws Exception {
        agent.json("/v1/job/web/scale", "{\"EvalID\":\"e1\"}");
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "job", "scale", "-detach", "web", "api", "4");
        assertEquals(0, r.code(), r.err());
        assertEquals("Evaluation ID: e1\n", r.out());
        JsonNode body = NomadJson.mapper().readTree(agent.last("/v1/job/web/scale").body());
        assertEquals(4, body.path("Count").asInt());
        assertEquals("api", body.path("Target").path("Group").asText());

        agent.json("/v1/job/web", "{\"ID\":\"web\",\"TaskGroups\":[{\"Name\":\"only\"}]}");
        Cli.Result implied = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "job", "scale", "-detach", "web", "2");
        assertEquals(0, implied.code(), implied.err());
        assertEquals("only", NomadJson.mapper().readTree(agent.last("/v1/job/web/scale").body()).path("Target")
                .path("Group").asText());

        agent.reply("/v1/job/web/scale", 400, "group count was greater than scaling policy maximum: 9 > 5");
        Cli.Result refused = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "job", "scale", "web", "only", "9");
        assertEquals(1, refused.code());
        assertEquals("Error submitting scaling request: Unexpected response code: 400 (group count was greater than "
                + "scaling policy maximum: 9 > 5)\n", refused.err());
    }

    @Test
    void initWritesARunnableExampleThatParsesAndNeverOverwrites(@TempDir Path dir) throws Exception {
        Cli.Result r = Cli.inDir(dir, Map.of(), "job", "init");
        assertEquals(0, r.code(), r.err());
        assertEquals("Example job file written to example.nomad.hcl\n", r.out());
        Path file = dir.resolve("example.nomad.hcl");
        JsonNode job = JobspecParser.parse(Files.readString(file), file.toString()).job();
        assertEquals("example", job.path("ID").asText());
        JsonNode task = job.path("TaskGroups").get(0).path("Tasks").get(0);
        assertEquals("raw_exec", task.path("Driver").asText());
        assertEquals("/bin/sh", task.path("Config").path("command").asText());

        Cli.Result again = Cli.inDir(dir, Map.of(), "job", "init");
        assertEquals(1, again.code());
        assertEquals("Job 'example.nomad.hcl' already exists\n", again.err());

        Cli.Result shortForm = Cli.inDir(dir, Map.of(), "job", "init", "-short", "short.nomad.hcl");
        assertEquals(0, shortForm.code(), shortForm.err());
        String text = Files.readString(dir.resolve("short.nomad.hcl"));
        assertTrue(!text.contains("#"), "no comments");
        assertEquals(job.path("TaskGroups").get(0).path("Tasks"), JobspecParser.parse(text, "short.nomad.hcl").job()
                .path("TaskGroups").get(0).path("Tasks"), "the same task either way");

        Cli.Result json = Cli.inDir(dir, Map.of(), "job", "init", "-json");
        assertEquals(0, json.code(), json.err());
        JsonNode written = NomadJson.mapper().readTree(Files.readString(dir.resolve("example.nomad.json")));
        assertEquals("example", written.path("Job").path("ID").asText());
    }

    /** An address where nothing listens. */
    private static String closedAddress() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }
    }

    @Test
    void validateWithoutAnAgentParsesLocallyAndNamesTheUsersFile(@TempDir Path dir) throws Exception {
        Map<String, String> env = Map.of("CARAVAN_ADDR", closedAddress());
        Cli.inDir(dir, Map.of(), "job", "init");
        Path good = dir.resolve("example.nomad.hcl");
        Cli.Result ok = Cli.run(env, "job", "validate", good.toString());
        assertEquals(0, ok.code(), ok.err());
        assertEquals("Job validation successful\n", ok.out());
        assertTrue(ok.err().startsWith("Warning: could not reach an agent"), ok.err());

        Path bad = dir.resolve("bad.nomad.hcl");
        Files.writeString(bad, "job \"web\" {\n  group \"g\" {\n    bogus = 1\n    count = \"x\"\n  }\n}\n");
        Cli.Result refused = Cli.run(env, "job", "validate", bad.toString());
        assertEquals(1, refused.code());
        assertTrue(refused.err().startsWith("Error validating job: " + bad + ":3:5: "), refused.err());
        assertTrue(!refused.err().contains("input.hcl"), refused.err());
        refused.err().lines().skip(1).forEach(line -> assertTrue(line.startsWith(bad + ":"), line));
    }

    @Test
    void planWithoutAnAgentSaysItNeedsAServer(@TempDir Path dir) throws Exception {
        Cli.inDir(dir, Map.of(), "job", "init");
        String address = closedAddress();
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", address), "job", "plan", dir.resolve("example.nomad.hcl")
                .toString());
        assertEquals(255, r.code());
        assertEquals("Error during plan: " + address + ": connection refused: job plan needs a Caravan server; start "
                + "one (caravan agent -dev) or point -address / CARAVAN_ADDR at one\n", r.err());
    }
}
