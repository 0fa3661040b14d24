package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobRunCommandTest extends FakeAgentTest {

    @Test
    void runParsesHclHereThenRegisters(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("web.nomad.hcl");
        Files.writeString(file, "variable \"dc\" {}\njob \"web\" {\n  datacenters = [var.dc]\n}\n");
        agent.json("/v1/jobs", "{\"EvalID\":\"d8c7ef09-2ebd\",\"EvalCreateIndex\":1,\"JobModifyIndex\":1}");
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "job", "run", "-detach", "-var", "dc=dc2", file.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("Job registration successful\nEvaluation ID: d8c7ef09-2ebd\n", r.out());
        assertEquals(List.of("PUT /v1/jobs"), agent.requests().stream().map(q -> q.method() + " " + q.path()).toList());
        assertEquals("dc2", io.caravan.api.json.NomadJson.mapper().readTree(agent.last("/v1/jobs").body())
                .path("Job").path("Datacenters").get(0).asText(),
                "the -var reached the job");
    }

    @Test
    void jsonJobsSkipTheParser(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("web.json");
        Files.writeString(file, "{\"Job\": {\"ID\": \"web\"}}");
        agent.json("/v1/jobs", "{\"EvalID\":\"e\"}");
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "job", "run", "-detach", file.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("PUT /v1/jobs"), agent.requests().stream().map(q -> q.method() + " " + q.path()).toList());
    }

    @Test
    void aParseErrorIsOneLineAndExitOne(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("bad.hcl");
        Files.writeString(file, "job \"web\" {\n  bogus = 1\n}\n");
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "job", "run", file.toString());
        assertEquals(1, r.code());
        assertEquals("Error submitting job: " + file + ":2:3: Unsupported argument; "
                + "An argument named \"bogus\" is not expected here.\n", r.err(), "the user's file, not input.hcl");
        assertEquals(List.of(), agent.requests(), "nothing sent");
    }

    @Test
    void validateListsTheServersProblems(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("web.json");
        Files.writeString(file, "{\"ID\": \"web\"}");
        agent.json("/v1/validate/job", "{\"DriverConfigValidated\":false,"
                + "\"ValidationErrors\":[\"TaskGroups: missing job task groups\"],\"Error\":\"x\",\"Warnings\":\"\"}");
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "job", "validate", file.toString());
        assertEquals(1, r.code());
        assertEquals("Job validation errors:\n* TaskGroups: missing job task groups\n", r.err());
        agent.json("/v1/validate/job", "{\"ValidationErrors\":[]}");
        Cli.Result ok = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "job", "validate", file.toString());
        assertEquals(0, ok.code(), ok.err());
        assertEquals("Job validation successful\n", ok.out());
        agent.json("/v1/validate/job", "{\"ValidationErrors\":[],\"Warnings\":\"1 warning:\\n\\n* template ignored\"}");
        Cli.Result warned = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "job", "validate", file.toString());
        assertEquals(0, warned.code(), warned.err());
        assertEquals("Job Warnings:\n1 warning:\n\n* template ignored\n\nJob validation successful\n", warned.out());
    }
}
