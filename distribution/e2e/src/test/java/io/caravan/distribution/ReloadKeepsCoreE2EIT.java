package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * A reload that changes live keys of the server and client blocks applies them in place: Raft, the leader's duties,
 * the state store and the client with its running task all stay up (no second start in the log, the leader answers
 * throughout, a blocking query in flight is answered by the write after the reload, the task keeps running), and the
 * new values take effect ({@code job_default_priority} gives the next job its priority, {@code max_kill_timeout} cuts
 * the kill of a task that ignores SIGTERM).
 */
class ReloadKeepsCoreE2EIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void reloadOfLiveServerAndClientKeysRestartsNothing() throws Exception {
        try (DevAgent dev = DevAgent.start("caravan-reload-core-", ", \"server\": {\"job_default_priority\": 50, "
                + "\"heartbeat_grace\": \"10s\"}, \"client\": {\"max_kill_timeout\": \"60s\"}")) {
            AgentProcess agent = dev.agent();
            // A task that ignores SIGTERM and asks for 60s to stop: only max_kill_timeout can cut that short.
            HttpResponse<String> registered = agent.call("PUT", "/v1/jobs", null, """
                    {"Job": {"ID": "stubborn", "TaskGroups": [{"Name": "g", "Count": 1,
                      "Tasks": [{"Name": "t", "Driver": "raw_exec", "KillTimeout": 60000000000,
                        "Config": {"command": "/bin/sh",
                                   "args": ["-c", "trap '' TERM; while true; do sleep 1; done"]}}]}]}}""");
            assertEquals(200, registered.statusCode(), registered.body());
            AgentProcess.await("the task runs", WAIT, () -> running(agent).size() == 1);
            String allocId = running(agent).get(0).path("ID").asText();

            String before = agent.log();
            int leaderStarts = count(before, "Leader duties started");
            int raftStarts = count(before, "Raft ready after");
            int clientStarts = count(before, "client started");
            String leader = agent.get("/v1/status/leader").body();

            // In flight across the reload: a blocking query on the jobs, and the leader polled without a pause.
            HttpResponse<String> jobs = agent.get("/v1/jobs");
            long index = Long.parseLong(jobs.headers().firstValue("X-Nomad-Index").orElseThrow());
            CompletableFuture<HttpResponse<String>> blocking = HTTP.sendAsync(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + agent.http + "/v1/jobs?index=" + index + "&wait=60s"))
                    .timeout(Duration.ofSeconds(90)).build(), HttpResponse.BodyHandlers.ofString());
            Set<String> leaderAnswers = ConcurrentHashMap.newKeySet();
            AtomicBoolean polling = new AtomicBoolean(true);
            Thread poller = new Thread(() -> {
                while (polling.get()) {
                    try {
                        HttpResponse<String> r = agent.get("/v1/status/leader");
                        leaderAnswers.add(r.statusCode() + " " + r.body());
                        Thread.sleep(20);
                    } catch (Exception e) {
                        leaderAnswers.add(e.toString());
                    }
                }
            }, "leader-poller");
            poller.start();

            String config = Files.readString(agent.config);
            Files.writeString(agent.config, config
                    .replace("\"job_default_priority\": 50", "\"job_default_priority\": 70")
                    .replace("\"heartbeat_grace\": \"10s\"", "\"heartbeat_grace\": \"20s\"")
                    .replace("\"max_kill_timeout\": \"60s\"", "\"max_kill_timeout\": \"2s\""));
            HttpResponse<String> reload = agent.put("/v1/agent/reload");
            assertEquals(200, reload.statusCode(), reload.body());
            JsonNode report = AgentProcess.JSON.readTree(reload.body());
            assertEquals(List.of("client.max_kill_timeout", "server.heartbeat_grace", "server.job_default_priority"),
                    texts(report.path("Applied")), reload.body());
            assertEquals(List.of(), texts(report.path("RestartRequired")), reload.body());

            // The new server value applies (Config Admin delivers it moments after the reload answers).
            AgentProcess.await("a job without a priority gets job_default_priority 70", Duration.ofSeconds(15),
                    () -> status(agent, job("probe")) == 200
                            && agent.json("/v1/job/probe").path("Priority").asInt() == 70);
            Thread.sleep(1000);   // give a restart, if any, time to show
            polling.set(false);
            poller.join(5000);

            // The blocking query, held across the reload, is answered by the first write after it (the probe job).
            HttpResponse<String> woken = blocking.get(20, TimeUnit.SECONDS);
            assertEquals(200, woken.statusCode(), woken.body());
            assertTrue(woken.body().contains("\"probe\""), woken.body());

            assertEquals(Set.of("200 " + leader), leaderAnswers, "the leader answered throughout the reload");
            String after = agent.log();
            assertEquals(leaderStarts, count(after, "Leader duties started"), after);
            assertFalse(after.contains("Leader duties stopped"), after);
            assertFalse(after.contains("declared twice"), after);
            assertEquals(raftStarts, count(after, "Raft ready after"), after);
            assertEquals(clientStarts, count(after, "client started"), "the client restarted: " + after);

            // The task kept running in the same allocation, started once.
            List<JsonNode> still = running(agent);
            assertEquals(1, still.size());
            assertEquals(allocId, still.get(0).path("ID").asText());
            JsonNode alloc = agent.json("/v1/allocation/" + allocId);
            assertEquals(1, alloc.path("TaskStates").path("t").path("Events").findValues("Type").stream()
                    .filter(t -> t.asText().equals("Started")).count(), alloc.toString());

            // The new client value applies to the task already running: stopped, it is killed after 2s, not 60s.
            long stopAt = System.nanoTime();
            assertEquals(200, agent.delete("/v1/job/stubborn").statusCode());
            AgentProcess.await("the stubborn task is killed", Duration.ofSeconds(20), () -> agent
                    .json("/v1/allocation/" + allocId).path("ClientStatus").asText().equals("complete"));
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopAt);
            assertTrue(tookMs < 20_000, "killed after " + tookMs + " ms");
        }
    }

    private static String job(String id) {
        return "{\"Job\": {\"ID\": \"" + id + "\", \"TaskGroups\": [{\"Name\": \"g\","
                + " \"Count\": 0, \"Tasks\": [{\"Name\": \"t\", \"Driver\": \"raw_exec\","
                + " \"Config\": {\"command\": \"/bin/true\"}}]}]}}";
    }

    private static int status(AgentProcess agent, String body) {
        try {
            return agent.call("PUT", "/v1/jobs", null, body).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    private static List<JsonNode> running(AgentProcess agent) {
        return agent.json("/v1/job/stubborn/allocations").findParents("ClientStatus").stream()
                .filter(a -> a.path("ClientStatus").asText().equals("running")).toList();
    }

    private static List<String> texts(JsonNode array) {
        return java.util.stream.StreamSupport.stream(array.spliterator(), false).map(JsonNode::asText).toList();
    }

    private static int count(String log, String line) {
        Matcher m = Pattern.compile(Pattern.quote(line)).matcher(log);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
