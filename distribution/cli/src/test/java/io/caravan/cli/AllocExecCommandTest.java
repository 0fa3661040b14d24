package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code alloc exec} argument handling against a fake agent (the session itself is covered end to end). */
class AllocExecCommandTest extends FakeAgentTest {
    private static final String ALLOC_ID = "8ba85cef-1111-2222-3333-444444444444";
    private static final String EXEC = "/v1/client/allocation/" + ALLOC_ID + "/exec";
    private static final String ALLOC = """
            {"ID":"%s","JobID":"web","TaskGroup":"cache","ClientStatus":"running",
             "Job":{"TaskGroups":[{"Name":"cache","Tasks":[{"Name":"redis"},{"Name":"init"}]}]}}"""
            .formatted(ALLOC_ID);

    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "CARAVAN_TOKEN", "secret");
        agent.json("/v1/allocations", "[{\"ID\":\"" + ALLOC_ID + "\"}]").json("/v1/allocation/" + ALLOC_ID, ALLOC)
                .reply(EXEC, 400, "exec not supported");
    }

    @Test
    void sendsTaskCommandAndTtyAndKeepsTheCommandsOwnFlags() {
        Cli.Result r = Cli.run(env, "alloc", "exec", "-i=false", "-t=false", "-task", "redis", "8ba8",
                "sh", "-c", "echo hi");
        assertEquals(1, r.code(), r.out());
        assertEquals("failed to exec into task: Unexpected response code: 400 (exec not supported)\n", r.err());
        FakeAgent.Request exec = agent.last(EXEC);
        String query = URLDecoder.decode(exec.query(), StandardCharsets.UTF_8);
        assertTrue(query.contains("task=redis"), query);
        assertTrue(query.contains("tty=false"), query);
        assertTrue(query.contains("command=[\"sh\",\"-c\",\"echo hi\"]"), query);
        assertEquals("secret", exec.token());
    }

    @Test
    void aTaskMustBeNamedWhenTheAllocationHasSeveral() {
        Cli.Result r = Cli.run(env, "alloc", "exec", "-t=false", "8ba8", "ls");
        assertEquals(1, r.code());
        assertTrue(r.err().contains("is running the following tasks"), r.err());
    }

    @Test
    void aCommandIsRequired() {
        Cli.Result r = Cli.run(env, "alloc", "exec", "-task", "redis", "8ba8");
        assertEquals(1, r.code());
        assertTrue(r.err().contains("This command takes at least two arguments"), r.err());
    }

    @Test
    void theEscapeIsOneCharacterOrNone() {
        Cli.Result r = Cli.run(env, "alloc", "exec", "-escape", "ab", "-task", "redis", "8ba8", "ls");
        assertEquals(1, r.code());
        assertTrue(r.err().contains("-escape requires one character"), r.err());
    }

    @Test
    void jobPicksARunningAllocation() {
        agent.json("/v1/job/web/allocations", "[{\"ID\":\"" + ALLOC_ID + "\",\"ClientStatus\":\"running\"}]");
        Cli.Result r = Cli.run(env, "alloc", "exec", "-job", "-t=false", "-task", "init", "web", "ls");
        assertEquals(1, r.code());
        assertTrue(URLDecoder.decode(agent.last(EXEC).query(), StandardCharsets.UTF_8).contains("task=init"));
    }

    @Test
    void aJobWithoutRunningAllocationsIsAnError() {
        agent.json("/v1/job/web/allocations", "[{\"ID\":\"" + ALLOC_ID + "\",\"ClientStatus\":\"complete\"}]");
        Cli.Result r = Cli.run(env, "alloc", "exec", "-job", "-task", "init", "web", "ls");
        assertEquals(1, r.code());
        assertEquals("failed to exec into task: job \"web\" has no running allocations\n", r.err());
    }
}
