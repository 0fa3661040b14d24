package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code alloc exec} and resource statistics on a dev agent running a raw_exec task: a one-shot command's output
 * and exit code, an interactive shell under {@code -t} with the CLI itself on a terminal (util-linux {@code script}
 * gives it one, so its raw mode and the remote pty are both exercised), and the task's memory in {@code /stats}.
 */
class AllocExecE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    @Test
    void execRunsCommandsInTheTaskAndStatsMeasureIt() throws Exception {
        try (AgentProcess agent = AgentProcess.startDev(tmp, ", \"data_dir\": \"" + tmp.resolve("data") + "\"")) {
            AgentProcess.await("the client node is ready", WAIT, () -> agent.json("/v1/nodes")
                    .findValues("Status").stream().anyMatch(s -> s.asText().equals("ready")));
            var response = agent.putForm("/v1/jobs", """
                    {"Job": {"ID": "shell", "Type": "service", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                      "Tasks": [{"Name": "t", "Driver": "raw_exec", "Env": {"GREETING": "hello from the task"},
                        "Config": {"command": "/bin/sh", "args": ["-c", "while true; do sleep 1; done"]}}]}]}}
                    """);
            assertEquals(200, response.statusCode(), response.body());
            AgentProcess.await("the task runs", WAIT, () -> {
                JsonNode allocs = agent.json("/v1/job/shell/allocations");
                return allocs.size() == 1 && allocs.get(0).get("ClientStatus").asText().equals("running");
            });
            String allocId = agent.json("/v1/job/shell/allocations").get(0).get("ID").asText();

            // One-shot: output, the task's environment, the exit code.
            Result echo = cli("", "alloc", "exec", "-address", agent.address(), "-i=false", allocId, "sh", "-c",
                    "echo hi; echo \"$GREETING\"; exit 5");
            assertEquals(5, echo.code(), echo.output());
            assertEquals("hi\nhello from the task\n", echo.output());

            // -job picks the running allocation; the command's own flags stay the command's.
            Result ls = cli("", "alloc", "exec", "-address", agent.address(), "-job", "-i=false", "shell", "ls", "-d",
                    "local");
            assertEquals(0, ls.code(), ls.output());
            assertEquals("local\n", ls.output());

            // Interactive, the CLI on a terminal: raw mode locally, a pty remotely.
            String caravan = AgentProcess.DIST.resolve("bin/caravan").toAbsolutePath().toString();
            String line = List.of(caravan, "alloc", "exec", "-address", agent.address(), "-t", allocId, "/bin/sh")
                    .stream().map(w -> "'" + w.replace("'", "'\\''") + "'").collect(Collectors.joining(" "));
            Result shell = run(List.of("script", "-q", "-e", "-c", line, "/dev/null"),
                    "echo $((6*7))\nexit 3\n");
            assertEquals(3, shell.code(), shell.output());
            assertTrue(shell.output().contains("42"), shell.output());

            // A command that does not exist: the shell's 127, not a hang.
            Result missing = cli("", "alloc", "exec", "-address", agent.address(), "-i=false", allocId,
                    "/no/such/command");
            assertTrue(missing.code() != 0, missing.output());

            // Statistics: the running task's memory, and the host's.
            JsonNode stats = agent.json("/v1/client/allocation/" + allocId + "/stats");
            JsonNode task = stats.get("Tasks").get("t");
            assertTrue(task.get("ResourceUsage").get("MemoryStats").get("RSS").asLong() > 0, stats.toString());
            assertTrue(task.get("Pids").size() >= 1, stats.toString());
            assertTrue(stats.get("ResourceUsage").get("MemoryStats").get("RSS").asLong() > 0, stats.toString());
            JsonNode host = agent.json("/v1/client/stats");
            assertTrue(host.get("Memory").get("Total").asLong() > 0, host.toString());
            assertTrue(host.get("CPU").size() >= 1, host.toString());
            assertTrue(host.get("Uptime").asLong() > 0, host.toString());

            Result status = cli("", "alloc", "status", "-address", agent.address(), "-stats", allocId);
            assertEquals(0, status.code(), status.output());
            assertTrue(status.output().contains("Memory Stats"), status.output());
            assertTrue(status.output().contains("CPU Stats"), status.output());
            Result node = cli("", "node", "status", "-address", agent.address(), "-self", "-stats");
            assertEquals(0, node.code(), node.output());
            assertTrue(node.output().contains("Host Resource Utilization"), node.output());
            assertTrue(node.output().contains("CPU Stats"), node.output());
        }
    }

    private record Result(int code, String output) {}

    private Result cli(String input, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(AgentProcess.DIST.resolve("bin/caravan").toAbsolutePath().toString());
        command.addAll(List.of(args));
        return run(command, input);
    }

    /** Runs {@code command} with {@code input} on its stdin (kept open until it exits); output of both streams. */
    private Result run(List<String> command, String input) throws Exception {
        Path log = Files.createTempFile(tmp, "cli", ".log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        OutputStream stdin = p.getOutputStream();
        stdin.write(input.getBytes(StandardCharsets.UTF_8));
        stdin.flush();
        boolean done = p.waitFor(60, TimeUnit.SECONDS);
        if (!done) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        stdin.close();
        String output = Files.readString(log);
        assertTrue(done, "finishes in time: " + command + "\n" + output);
        return new Result(p.exitValue(), output);
    }
}
