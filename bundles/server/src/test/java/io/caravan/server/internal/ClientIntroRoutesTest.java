package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Scope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Client introduction tokens: Nomad's claims, default and capped TTLs, node:write. */
class ClientIntroRoutesTest {
    private final ServerState state = new ServerState();
    private final RaftWrites raft = JobLimitsTest.writes(state, new AtomicLong());
    private final EvalBrokerTest.MutableClock clock = new EvalBrokerTest.MutableClock();
    private final KeyringService keyring = new KeyringService(state.store(), raft, Keyring.newKeystorePair(), clock,
            false);
    private final RoutesHarness h = new RoutesHarness();

    @BeforeEach
    void setUp() throws Exception {
        keyring.tick();
        new KeyringDuties(state.store()::snapshot, keyring, raft, KeyringTest.config("720h", "1h")).ensureActive()
                .orElseThrow().toCompletableFuture().get(5, TimeUnit.SECONDS);
        h.add(new ClientIntroRoutes(keyring, new ClientIntroRoutes.Config() {
            public Class<? extends Annotation> annotationType() { return ClientIntroRoutes.Config.class; }
            public String region() { return "eu"; }
            public String client_introduction_default_identity_ttl() { return "5m"; }
            public String client_introduction_max_identity_ttl() { return "30m"; }
        }));
    }

    @AfterEach
    void stop() {
        h.close();
        state.deactivate();
    }

    private Map<String, Object> create(String body) throws Exception {
        Object reply = h.call("PUT", ClientIntroRoutes.PATH, Map.of(), body == null ? null : RoutesHarness.json(body))
                .body();
        String jwt = ((ClientIntroRoutes.IntroToken) reply).jwt();
        return keyring.verify(jwt).orElseThrow();
    }

    @Test
    void aTokenBoundToNameAndPool() throws Exception {
        Map<String, Object> claims = create("{\"NodeName\": \"web-1\", \"NodePool\": \"edge\", \"TTL\": \"10m\"}");
        assertEquals("node-introduction:eu:edge:web-1:default", claims.get("sub"));
        assertEquals("edge", claims.get("nomad_node_pool"));
        assertEquals("web-1", claims.get("nomad_node_name"));
        assertEquals(List.of("nomadproject.io"), claims.get("aud"));
        long iat = ((Number) claims.get("iat")).longValue();
        assertEquals(iat + 600, ((Number) claims.get("exp")).longValue());
    }

    @Test
    void defaultsAndTheCap() throws Exception {
        Map<String, Object> claims = create(null);
        assertEquals("default", claims.get("nomad_node_pool"));
        assertFalse(claims.containsKey("nomad_node_name"));
        long iat = ((Number) claims.get("iat")).longValue();
        assertEquals(iat + 300, ((Number) claims.get("exp")).longValue(), "default_identity_ttl");
        Map<String, Object> capped = create("{\"TTL\": 36000000000000}");
        assertEquals(iat + 1800, ((Number) capped.get("exp")).longValue(), "capped at max_identity_ttl");
    }

    @Test
    void badInputNamesTheField() {
        CaravanException e = h.refused("PUT", ClientIntroRoutes.PATH, Map.of(), RoutesHarness.json(
                "{\"TTL\": \"soon\"}"));
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        assertTrue(e.getMessage().contains("TTL"), e.getMessage());
        assertEquals(AclRule.scope(Scope.NODE, Access.WRITE), h.endpoint("PUT", ClientIntroRoutes.PATH).rule());
    }
}
