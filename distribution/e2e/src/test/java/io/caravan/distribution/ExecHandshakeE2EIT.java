package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * {@code alloc exec} with ACLs on, its token in the WebSocket's first frame ({@code ws_handshake=true}, as Nomad's UI
 * sends it: browsers cannot set headers on a WebSocket), on a server and a separate client: straight to the client
 * agent, and through the server that relays the socket. A token that may exec runs the command; a missing, unknown or
 * insufficient one is refused with Nomad's close code 1008 and the reason, and the command never runs.
 */
class ExecHandshakeE2EIT {
    private static final Duration WAIT = AclServerAndClient.WAIT;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void theFirstFramesTokenIsCheckedBeforeTheCommandRunsDirectAndThroughTheServer() throws Exception {
        try (AclServerAndClient acl = AclServerAndClient.start("caravan-exec-handshake-")) {
            Path dir = acl.dir;
            AgentProcess server = acl.server;
            AgentProcess client = acl.client;
            String management = acl.management;
            String reader = server.tokenWith(management, "reader", "namespace \"default\" { policy = \"read\" }");
            String execOnly = server.tokenWith(management, "exec-only",
                    "namespace \"default\" { capabilities = [\"alloc-exec\"] }");
            String exec = server.tokenWith(management, "exec",
                    "namespace \"default\" { capabilities = [\"alloc-exec\", \"alloc-node-exec\"] }");
            HttpResponse<String> run = server.call("POST", "/v1/jobs", management, """
                    {"Job": {"ID": "shell", "Type": "service", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
                      "Tasks": [{"Name": "t", "Driver": "raw_exec",
                        "Config": {"command": "/bin/sh", "args": ["-c", "while true; do sleep 1; done"]}}]}]}}
                    """);
            assertEquals(200, run.statusCode(), run.body());
            AgentProcess.await("the task runs", WAIT, () -> {
                try {
                    JsonNode allocs = AgentProcess.JSON.readTree(server.call("GET", "/v1/job/shell/allocations",
                            management, null).body());
                    return allocs.size() == 1 && allocs.get(0).get("ClientStatus").asText().equals("running");
                } catch (Exception e) {
                    return false;
                }
            });
            String allocId = AgentProcess.JSON.readTree(server.call("GET", "/v1/job/shell/allocations", management,
                    null).body()).get(0).get("ID").asText();

            for (AgentProcess agent : List.of(client, server)) {
                String where = agent == client ? "client" : "server";
                // Refused, and nothing ran: no token, an unknown one, one that may only read, one without
                // alloc-node-exec (raw_exec has no filesystem isolation).
                List<String[]> refusals = List.of(new String[] {null, "Permission denied"},
                        new String[] {"00000000-0000-4000-8000-000000000000", "ACL token not found"},
                        new String[] {reader, "Permission denied"}, new String[] {execOnly, "Permission denied"});
                long relayed = rpcCalls(client, "Agent.WebSocket");
                for (String[] refusal : refusals) {
                    if (agent == server && refusal[0] == execOnly) {
                        // The server refused the others itself: it relayed nothing to the client.
                        Thread.sleep(2500);    // the metrics are sampled every second
                        assertEquals(relayed, rpcCalls(client, "Agent.WebSocket"));
                    }
                    Path marker = dir.resolve("refused-" + where + "-" + refusals.indexOf(refusal));
                    Session session = Session.open(agent, allocId, marker, true, null, refusal[0]);
                    session.closed.get(30, TimeUnit.SECONDS);
                    assertEquals(1008, session.status, where + " " + refusal[0]);
                    assertEquals(refusal[1], session.reason, where + " " + refusal[0]);
                    assertTrue(session.frames.isEmpty(), session.frames.toString());
                    assertFalse(Files.exists(marker), "the command did not run: " + marker);
                }
                // A token that may exec: the command runs, its exit comes back.
                Path marker = dir.resolve("ran-" + where);
                Session ok = Session.open(agent, allocId, marker, true, null, exec);
                ok.closed.get(30, TimeUnit.SECONDS);
                assertTrue(Files.exists(marker), where + ": " + ok.frames + " " + ok.status + " " + ok.reason);
                assertEquals("{\"exited\":true,\"result\":{\"exit_code\":0}}", ok.frames.get(ok.frames.size() - 1));

                if (agent == server) {
                    // exec-only passed the server's check (alloc-exec) and was refused by the client (no
                    // alloc-node-exec); the good one ran there: both went through.
                    AgentProcess.await("the relayed sockets are counted", WAIT,
                            () -> rpcCalls(client, "Agent.WebSocket") >= relayed + 2);
                }

                // The header's token, as the CLI sends it, still works; a header token that may not exec is refused
                // before the upgrade, as before.
                Path headed = dir.resolve("header-" + where);
                Session header = Session.open(agent, allocId, headed, true, exec, null);
                header.closed.get(30, TimeUnit.SECONDS);
                assertTrue(Files.exists(headed), where + ": " + header.frames);
                HttpResponse<String> refusedByHeader = agent.call("GET", "/v1/client/allocation/" + allocId
                        + "/exec?task=t&command=%5B%22true%22%5D&ws_handshake=true", reader, null);
                assertEquals(403, refusedByHeader.statusCode(), refusedByHeader.body());
            }
        }
    }

    /** {@code method}'s RPC calls served by {@code agent}, from its metrics (sampled every second). */
    private static long rpcCalls(AgentProcess agent, String method) {
        long n = 0;
        try {
            for (JsonNode c : agent.json("/v1/metrics").path("Counters")) {
                if (c.path("Name").asText().equals("nomad.nomad.rpc.request")
                        && c.path("Labels").path("method").asText().equals(method)) {
                    n += c.path("Count").asLong();
                }
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        return n;
    }

    /** One exec of {@code touch marker}: the frames received, then how the socket closed. */
    private static final class Session implements WebSocket.Listener {
        final List<String> frames = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> closed = new CompletableFuture<>();
        final StringBuilder partial = new StringBuilder();
        volatile Integer status;
        volatile String reason;

        static Session open(AgentProcess agent, String allocId, Path marker, boolean handshake, String headerToken,
                            String frameToken) throws Exception {
            String command = AgentProcess.JSON.writeValueAsString(List.of("touch", marker.toString()));
            URI uri = URI.create(agent.address().replaceFirst("^http", "ws") + "/v1/client/allocation/" + allocId
                    + "/exec?task=t&command=" + URLEncoder.encode(command, StandardCharsets.UTF_8)
                    + (handshake ? "&ws_handshake=true" : ""));
            Session session = new Session();
            WebSocket.Builder builder = HTTP.newWebSocketBuilder();
            if (headerToken != null) {
                builder.header("X-Nomad-Token", headerToken);
            }
            WebSocket ws = builder.buildAsync(uri, session).get(30, TimeUnit.SECONDS);
            if (headerToken == null) {
                // (With a header token the command starts before the upgrade: touch may be done already.)
                String auth = AgentProcess.JSON.createObjectNode().put("version", 1)
                        .put("auth_token", frameToken == null ? "" : frameToken).toString();
                ws.sendText(auth, true).get(10, TimeUnit.SECONDS);
            }
            return session;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                frames.add(partial.toString());
                partial.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String why) {
            status = statusCode;
            reason = why;
            closed.complete(null);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closed.completeExceptionally(error);
        }
    }
}
