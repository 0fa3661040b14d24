package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.distribution.ServerFiles.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server process and a separate client process; the CLI talks to the SERVER only. {@code alloc exec} (one-shot and
 * an interactive shell under {@code -t}), {@code alloc logs -f} and {@code alloc fs -f} reach the task on the client through the server,
 * which relays them over the RPC connection the client opened (servers need not reach clients).
 */
class StreamThroughServerE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path tmp;

    private final List<AgentProcess> agents = new ArrayList<>();
    private final List<Process> clis = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (Process p : clis) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        if (!agents.isEmpty() && agents.get(0).process.isAlive()) {
            try {   // stop the task: the client leaves it running on shutdown, as Nomad does
                agents.get(0).delete("/v1/job/streams?purge=true");
                Thread.sleep(1500);
            } catch (Exception ignored) {
                // best effort
            }
        }
        for (AgentProcess a : agents) {
            a.close();
        }
    }

    @Test
    void execAndFollowedLogsGoThroughTheServer() throws Exception {
        List<Ports> ports = ServerFiles.ports(2);
        Files.writeString(tmp.resolve("server.hcl"), ServerFiles.soloServerConfig(tmp, "server1", ports.get(0)));
        AgentProcess server = AgentProcess.start(tmp.resolve("server.hcl"), tmp.resolve("server.log"),
                ports.get(0).http(), ports.get(0).rpc());
        agents.add(server);
        Files.writeString(tmp.resolve("client.hcl"), ServerFiles.clientConfig(tmp, "client1", ports.get(1),
                List.of(ports.get(0).rpcAddress())));
        AgentProcess client = AgentProcess.start(tmp.resolve("client.hcl"), tmp.resolve("client.log"),
                ports.get(1).http(), ports.get(1).rpc());
        agents.add(client);
        AgentProcess.await("the client node is ready", WAIT, () -> server.json("/v1/nodes")
                .findValues("Status").stream().anyMatch(s -> s.asText().equals("ready")));

        // The task says "started", then one line each time the test drops a file, then waits.
        Path go = tmp.resolve("go");
        String allocId = runJob(server, "echo started; while true; do if [ -e %s ]; then echo appended-after; "
                .formatted(go) + "rm -f %s; fi; sleep 0.2; done".formatted(go));

        // One-shot exec through the server.
        Result echo = cli("", "alloc", "exec", "-address", server.address(), "-i=false", allocId, "echo", "hi");
        assertEquals(0, echo.code(), echo.output());
        assertEquals("hi\n", echo.output());

        // The node's own errors come back as they are.
        Result missing = cli("", "alloc", "exec", "-address", server.address(), "-i=false", "-task", "nope",
                allocId, "true");
        assertTrue(missing.code() != 0, missing.output());

        // Interactive, the CLI on a terminal (script gives it one): raw mode locally, a pty on the client.
        String caravan = AgentProcess.DIST.resolve("bin/caravan").toAbsolutePath().toString();
        String line = List.of(caravan, "alloc", "exec", "-address", server.address(), "-t", allocId, "/bin/sh")
                .stream().map(w -> "'" + w.replace("'", "'\\''") + "'").collect(Collectors.joining(" "));
        Result shell = run(List.of("script", "-q", "-e", "-c", line, "/dev/null"), "echo $((6*7))\nexit 3\n");
        assertEquals(3, shell.code(), shell.output());
        assertTrue(shell.output().contains("42"), shell.output());

        // logs -f and fs -f through the server: what was there, then a line appended after they started following.
        Path logs = tmp.resolve("logs-f.out");
        Process followLogs = follow(logs, caravan, "alloc", "logs", "-f", "-address", server.address(), allocId);
        Path file = tmp.resolve("fs-f.out");
        Process followFile = follow(file, caravan, "alloc", "fs", "-f", "-address", server.address(), allocId,
                "alloc/logs/t.stdout.0");
        AgentProcess.await("logs -f shows what was logged", WAIT, () -> AgentProcess.read(logs).contains("started"));
        AgentProcess.await("fs -f shows the file", WAIT, () -> AgentProcess.read(file).contains("started"));
        assertTrue(followLogs.isAlive(), "still following: " + AgentProcess.read(logs));
        assertTrue(followFile.isAlive(), "still following: " + AgentProcess.read(file));
        Files.writeString(go, "go");
        AgentProcess.await("logs -f shows the line appended after it started", WAIT,
                () -> AgentProcess.read(logs).contains("appended-after"));
        AgentProcess.await("fs -f shows the line appended after it started", WAIT,
                () -> AgentProcess.read(file).contains("appended-after"));
        for (Process p : List.of(followLogs, followFile)) {
            assertTrue(p.isAlive(), "still following");
            p.destroy();
            assertTrue(p.waitFor(10, TimeUnit.SECONDS), "a follower stops when told to");
        }
    }

    /**
     * Two servers; the client's RPC connection is at one of them. The CLI asks the OTHER, which relays the stream
     * to the server that holds the connection (as it relays plain calls).
     */
    @Test
    void execGoesThroughTheServerThatHoldsTheNodesConnection() throws Exception {
        List<Ports> ports = ServerFiles.ports(3);
        List<AgentProcess> servers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Files.writeString(tmp.resolve("server" + (i + 1) + ".hcl"),
                    ServerFiles.serverConfig(tmp, i + 1, ports.get(i), ports.subList(0, 2), null));
            AgentProcess a = AgentProcess.start(tmp.resolve("server" + (i + 1) + ".hcl"),
                    tmp.resolve("server" + (i + 1) + ".log"), ports.get(i).http(), ports.get(i).rpc());
            agents.add(a);
            servers.add(a);
        }
        AgentProcess.await("the servers agree on a leader", WAIT, () -> {
            String leader = ServerFiles.leaderOf(servers.get(0));
            return !leader.isEmpty() && leader.equals(ServerFiles.leaderOf(servers.get(1)));
        });
        // Told of the leader only, the client calls it alone (heartbeat replies name the leader first).
        Files.writeString(tmp.resolve("client.hcl"), ServerFiles.clientConfig(tmp, "client1", ports.get(2),
                List.of(ServerFiles.leaderOf(servers.get(0)))));
        agents.add(AgentProcess.start(tmp.resolve("client.hcl"), tmp.resolve("client.log"), ports.get(2).http(),
                ports.get(2).rpc()));
        AgentProcess.await("the client node is ready", WAIT, () -> servers.get(0).json("/v1/nodes")
                .findValues("Status").stream().anyMatch(s -> s.asText().equals("ready")));
        String allocId = runJob(servers.get(0), "echo started; while true; do sleep 1; done");

        // The client was told of the leader only: its connection is there, and the other server relays.
        String leader = ServerFiles.leaderOf(servers.get(0));
        AgentProcess holder = servers.get(ServerFiles.indexOf(ports, leader));
        AgentProcess elsewhere = servers.get(1 - ServerFiles.indexOf(ports, leader));

        // The relay mark is internal: a caller who sets it is not believed, and the call is relayed all the same.
        HttpResponse<String> marked = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(elsewhere.address() + "/v1/client/allocation/" + allocId + "/stats"))
                .header("X-Caravan-Forwarded", "1").timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, marked.statusCode(), marked.body());

        Result echo = cli("", "alloc", "exec", "-address", elsewhere.address(), "-i=false", allocId, "echo", "hi");
        assertEquals(0, echo.code(), echo.output());
        assertEquals("hi\n", echo.output());
        Path logs = tmp.resolve("logs-f.out");
        Process followLogs = follow(logs, AgentProcess.DIST.resolve("bin/caravan").toAbsolutePath().toString(),
                "alloc", "logs", "-f", "-address", elsewhere.address(), allocId);
        AgentProcess.await("logs -f shows what was logged", WAIT, () -> AgentProcess.read(logs).contains("started"));
        assertTrue(followLogs.isAlive(), "still following: " + AgentProcess.read(logs));
        followLogs.destroy();
        assertTrue(followLogs.waitFor(10, TimeUnit.SECONDS));

        // The streams went through the connection holder (unless the client had a connection to both servers).
        boolean relayed = false;
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!relayed && System.nanoTime() < deadline) {
            relayed = rpcCalls(holder, "Agent.WebSocket") > 0 && rpcCalls(holder, "Agent.HTTPStream") > 0;
            Thread.sleep(250);
        }
        Assumptions.assumeTrue(relayed, "the client connected to both servers: nothing was relayed");
    }

    /** {@code method}'s RPC calls served by {@code agent}, from its metrics (sampled every second). */
    private static long rpcCalls(AgentProcess agent, String method) throws Exception {
        long n = 0;
        for (JsonNode c : agent.json("/v1/metrics").path("Counters")) {
            if (c.path("Name").asText().equals("nomad.nomad.rpc.request")
                    && c.path("Labels").path("method").asText().equals(method)) {
                n += c.path("Count").asLong();
            }
        }
        return n;
    }

    /** Runs the job {@code streams}: one raw_exec task running {@code script}; its allocation's ID once it runs. */
    private String runJob(AgentProcess server, String script) throws Exception {
        var response = server.putForm("/v1/jobs", """
                {"Job": {"ID": "streams", "Type": "service", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                  "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/sh", "args": ["-c",
                    %s]}}]}]}}
                """.formatted(AgentProcess.JSON.writeValueAsString(script)));
        assertEquals(200, response.statusCode(), response.body());
        AgentProcess.await("the task runs", WAIT, () -> {
            JsonNode allocs = server.json("/v1/job/streams/allocations");
            return allocs.size() == 1 && allocs.get(0).get("ClientStatus").asText().equals("running");
        });
        return server.json("/v1/job/streams/allocations").get(0).get("ID").asText();
    }

    private Process follow(Path out, String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        clis.add(p);
        return p;
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
        clis.add(p);
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
