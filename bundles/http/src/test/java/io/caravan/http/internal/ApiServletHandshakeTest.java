package io.caravan.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.AclResolver;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Identity;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.WebSocketBody;
import io.caravan.http.WebSocketPeer;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Constants;

/**
 * With ACLs on, a WebSocket endpoint that takes its token in the first message ({@code ws_handshake}) reaches its
 * handler unchecked only when the call asks for that and carries no token; every other call is checked before the
 * upgrade, as any route's.
 */
class ApiServletHandshakeTest {
    private static final ApiEndpoint SOCKET = ApiEndpoint.of("Test.Socket", AclRule.MANAGEMENT);
    /** Knows {@code mgmt} (management) and {@code client} (allowed nothing). */
    private static final AclResolver TOKENS = secret -> switch (secret == null ? "" : secret) {
        case "mgmt" -> new Identity(Identity.Kind.TOKEN, "a-mgmt", "ops", Acl.MANAGEMENT);
        case "client" -> new Identity(Identity.Kind.TOKEN, "a-client", "dev", Acl.NONE);
        case "" -> Identity.anonymous(Acl.NONE);
        default -> throw new CaravanException(ErrorCode.PERMISSION_DENIED, "ACL token not found");
    };
    private static Server server;
    private static URI base;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        ApiServlet servlet = new ApiServlet(HttpConfigs.of(Map.of("server_enabled", true, "acl_enabled", true)),
                Map.of(Constants.SERVICE_PID, "io.caravan.http"), null, new EndpointCalls());
        var field = ApiServlet.class.getDeclaredField("resolver");
        field.setAccessible(true);
        field.set(servlet, TOKENS);
        servlet.bindRoutes(routes -> routes
                .get("/v1/test/handshake", SOCKET.withTokenInHandshake(), ApiServletHandshakeTest::socket)
                .get("/v1/test/header-only", SOCKET, ApiServletHandshakeTest::socket), Map.of());
        server = TestJetty.start(servlet);
        base = TestJetty.base(server);
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
    }

    /** Answers the first message with what the handler saw: deferred or not, and the message's token's check. */
    private static ApiResponse socket(ApiRequest request) {
        boolean deferred = request.authenticationDeferred();
        return ApiResponse.ok((WebSocketBody) peer -> new WebSocketBody.Listener() {
            @Override
            public void text(String token) {
                String verdict;
                try {
                    Identity caller = deferred ? request.authenticate(token) : request.identity();
                    verdict = SOCKET.rule().allows(caller, "default") ? "allowed" : "Permission denied";
                } catch (CaravanException e) {
                    verdict = e.getMessage();
                }
                peer.send("deferred=" + deferred + " " + verdict);
                peer.close();
            }

            @Override
            public void closed() {
            }
        });
    }

    @Test
    void aHandshakeCallWithoutATokenIsCheckedByItsHandler() throws Exception {
        assertEquals("deferred=true allowed", exchange("/v1/test/handshake?ws_handshake=true", null, "mgmt"));
        assertEquals("deferred=true Permission denied",
                exchange("/v1/test/handshake?ws_handshake=true", null, "client"));
        assertEquals("deferred=true Permission denied", exchange("/v1/test/handshake?ws_handshake=true", null, ""));
        assertEquals("deferred=true ACL token not found",
                exchange("/v1/test/handshake?ws_handshake=1", null, "nope"));
    }

    @Test
    void everyOtherCallIsCheckedBeforeTheUpgrade() throws Exception {
        // A header token: checked as always, whatever the query says.
        assertEquals("deferred=false allowed", exchange("/v1/test/handshake?ws_handshake=true", "mgmt", "x"));
        assertEquals(403, refused("/v1/test/handshake?ws_handshake=true", "client"));
        // No ws_handshake, or an endpoint that does not take its token in the first message.
        assertEquals(403, refused("/v1/test/handshake", null));
        assertEquals(403, refused("/v1/test/handshake?ws_handshake=false", null));
        assertEquals(403, refused("/v1/test/header-only?ws_handshake=true", null));
    }

    /** Opens the socket, sends {@code message}, and returns the one message it answers. */
    private String exchange(String path, String headerToken, String message) throws Exception {
        CompletableFuture<String> answer = new CompletableFuture<>();
        List<CharSequence> parts = new ArrayList<>();
        WebSocket.Builder builder = http.newWebSocketBuilder();
        if (headerToken != null) {
            builder.header("X-Nomad-Token", headerToken);
        }
        WebSocket ws = builder.buildAsync(ws(path), new WebSocket.Listener() {
            @Override
            public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
                parts.add(data);
                if (last) {
                    answer.complete(String.join("", parts));
                }
                socket.request(1);
                return null;
            }
        }).get(10, TimeUnit.SECONDS);
        ws.sendText(message, true).get(10, TimeUnit.SECONDS);
        return answer.get(10, TimeUnit.SECONDS);
    }

    /** The HTTP status a refused upgrade answered. */
    private int refused(String path, String headerToken) throws Exception {
        WebSocket.Builder builder = http.newWebSocketBuilder();
        if (headerToken != null) {
            builder.header("X-Nomad-Token", headerToken);
        }
        ExecutionException e = assertThrows(ExecutionException.class, () -> builder.buildAsync(ws(path),
                new WebSocket.Listener() {}).get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof WebSocketHandshakeException, e.toString());
        return ((WebSocketHandshakeException) e.getCause()).getResponse().statusCode();
    }

    private static URI ws(String path) {
        return URI.create(base.toString().replaceFirst("^http", "ws") + path);
    }
}
