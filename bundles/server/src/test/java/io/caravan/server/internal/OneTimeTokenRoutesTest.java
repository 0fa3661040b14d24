package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.AclToken;
import io.caravan.api.acl.Identity;
import io.caravan.api.json.NomadJson;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.AsyncHandler;
import io.caravan.http.QueryOptions;
import io.caravan.http.RouteTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One-time tokens on the real routes and FSM with an injected clock: a token holder gets a secret that is exchanged
 * for its token exactly once; an anonymous caller gets none; an expired secret is refused and the leader's collection
 * deletes it.
 */
class OneTimeTokenRoutesTest {
    private final ServerState state = new ServerState();
    private final AtomicLong entries = new AtomicLong();
    private final RaftWrites writes = JobLimitsTest.writes(state, entries);
    private final EvalBrokerTest.MutableClock clock = new EvalBrokerTest.MutableClock();
    private final Map<String, AsyncHandler> routes = new HashMap<>();
    private AclToken token;

    private record Call(String method, String path, Identity identity, JsonNode json) implements ApiRequest {
        public String pathParam(String name) { return null; }
        public Optional<String> query(String name) { return Optional.empty(); }
        public List<String> queryAll(String name) { return List.of(); }
        public Optional<String> header(String name) { return Optional.empty(); }
        public Optional<String> token() { return Optional.empty(); }
        public QueryOptions options() {
            return new QueryOptions("global", "default", 0, Duration.ZERO, false, "", "", 0, "", false);
        }
        public <T> T body(Class<T> type) {
            if (json == null) {
                throw CaravanException.badRequest("missing body");
            }
            try {
                return NomadJson.mapper().treeToValue(json, type);
            } catch (Exception e) {
                throw new IllegalArgumentException(e);
            }
        }
        public String remoteAddress() { return "127.0.0.1"; }
    }

    private static AclConfig aclOn() {
        return (AclConfig) Proxy.newProxyInstance(AclConfig.class.getClassLoader(), new Class<?>[] {AclConfig.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "annotationType" -> AclConfig.class;
                    case "acl_enabled" -> true;
                    case "toString" -> "AclConfig";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> method.getDefaultValue();
                });
    }

    @BeforeEach
    void start() throws Exception {
        new OneTimeTokenRoutes(state.store(), writes, aclOn(), clock).register(new RouteTable() {
            public RouteTable routeAsync(String m, String pattern, ApiEndpoint endpoint, AsyncHandler h) {
                routes.put(m + " " + pattern, h);
                return this;
            }
        });
        token = AclTokenGcTest.token("someone", clock.instant(), null);
        writes.submit(new Command.AclTokenUpsert(List.of(token))).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() {
        state.deactivate();
    }

    private ApiResponse call(String path, Identity caller, JsonNode body) throws Exception {
        try {
            return routes.get("POST " + path).handle(new Call("POST", path, caller, body))
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private JsonNode create() throws Exception {
        ApiResponse created = call("/v1/acl/token/onetime",
                new Identity(Identity.Kind.TOKEN, token.accessorId(), token.name(), Acl.NONE), null);
        assertEquals(200, created.status());
        return NomadJson.mapper().valueToTree(created.body()).get("OneTimeToken");
    }

    private JsonNode exchangeBody(String secret) {
        return NomadJson.mapper().createObjectNode().put("OneTimeSecretID", secret);
    }

    @Test
    void aSecretIsExchangedForItsTokenOnce() throws Exception {
        JsonNode ott = create();
        assertEquals(token.accessorId(), ott.get("AccessorID").asText());
        assertEquals(clock.instant().plus(Duration.ofMinutes(10)).toString(),
                java.time.Instant.parse(ott.get("ExpiresAt").asText()).toString());
        assertTrue(ott.get("CreateIndex").asLong() > 0);

        ApiResponse exchanged = call("/v1/acl/token/onetime/exchange", Identity.anonymous(Acl.NONE),
                exchangeBody(ott.get("OneTimeSecretID").asText()));
        JsonNode got = NomadJson.mapper().valueToTree(exchanged.body()).get("Token");
        assertEquals(token.secretId(), got.get("SecretID").asText());

        CaravanException again = assertThrows(CaravanException.class, () -> call("/v1/acl/token/onetime/exchange",
                Identity.anonymous(Acl.NONE), exchangeBody(ott.get("OneTimeSecretID").asText())));
        assertEquals(ErrorCode.PERMISSION_DENIED, again.code());
        assertEquals(0, state.store().snapshot().all(OneTimeTokens.TABLE).count());
    }

    @Test
    void anAnonymousCallerGetsNoSecret() {
        CaravanException refused = assertThrows(CaravanException.class,
                () -> call("/v1/acl/token/onetime", Identity.anonymous(Acl.NONE), null));
        assertEquals(ErrorCode.PERMISSION_DENIED, refused.code());
    }

    @Test
    void anExpiredSecretIsRefusedAndCollected() throws Exception {
        String first = create().get("OneTimeSecretID").asText();
        create();
        clock.advance(Duration.ofMinutes(10));
        CaravanException expired = assertThrows(CaravanException.class,
                () -> call("/v1/acl/token/onetime/exchange", Identity.anonymous(Acl.NONE), exchangeBody(first)));
        assertEquals(ErrorCode.PERMISSION_DENIED, expired.code());
        assertEquals(2, state.store().snapshot().all(OneTimeTokens.TABLE).count(), "a refusal writes nothing");

        new AclTokenGc(state.store(), writes, clock, Duration.ofHours(1)).collect().toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        assertEquals(0, state.store().snapshot().all(OneTimeTokens.TABLE).count());
    }

    @Test
    void aMissingSecretIsA400() {
        CaravanException bad = assertThrows(CaravanException.class, () -> call("/v1/acl/token/onetime/exchange",
                Identity.anonymous(Acl.NONE), NomadJson.mapper().createObjectNode()));
        assertEquals(ErrorCode.BAD_REQUEST, bad.code());
    }
}
