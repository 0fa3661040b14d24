package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.model.Node;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which new nodes each {@code client_introduction.enforcement} level lets register, with tokens signed by a real
 * keyring through the real token endpoint; and the node identities registered nodes get.
 */
class ClientIntroductionTest {
    private final ServerState state = new ServerState();
    private final RaftWrites raft = JobLimitsTest.writes(state, new AtomicLong());
    private final EvalBrokerTest.MutableClock clock = new EvalBrokerTest.MutableClock();
    private final KeyringService keyring = new KeyringService(state.store(), raft, Keyring.newKeystorePair(), clock,
            false);
    private final RoutesHarness h = new RoutesHarness();
    private ClientIntroduction intro;

    @BeforeEach
    void setUp() throws Exception {
        keyring.tick();
        new KeyringDuties(state.store()::snapshot, keyring, raft, KeyringTest.config("720h", "1h")).ensureActive()
                .orElseThrow().toCompletableFuture().get(5, TimeUnit.SECONDS);
        h.add(new ClientIntroRoutes(keyring, new ClientIntroRoutes.Config() {
            public Class<? extends Annotation> annotationType() { return ClientIntroRoutes.Config.class; }
            public String region() { return "global"; }
            public String client_introduction_default_identity_ttl() { return "5m"; }
            public String client_introduction_max_identity_ttl() { return "30m"; }
        }));
        intro = new ClientIntroduction(keyring, config("warn"));
    }

    @AfterEach
    void stop() {
        h.close();
        state.deactivate();
    }

    private static ClientIntroduction.Config config(String enforcement) {
        return new ClientIntroduction.Config() {
            public Class<? extends Annotation> annotationType() { return ClientIntroduction.Config.class; }
            public String region() { return "global"; }
            public String client_introduction_enforcement() { return enforcement; }
        };
    }

    private String token(String body) throws Exception {
        return ((ClientIntroRoutes.IntroToken) h.call("PUT", ClientIntroRoutes.PATH, Map.of(),
                RoutesHarness.json(body)).body()).jwt();
    }

    private static Node node(String id, String name, String pool) throws Exception {
        return io.caravan.api.json.NomadJson.mapper().readValue("""
                {"ID": "%s", "SecretID": "s", "Name": "%s", "Datacenter": "dc1", "NodePool": "%s"}
                """.formatted(id, name, pool), Node.class);
    }

    private long violations() {
        return intro.violations();
    }

    private CaravanException refused(Node node, String token) {
        CaravanException e = assertThrows(CaravanException.class, () -> intro.admit(node, token));
        assertEquals(ErrorCode.PERMISSION_DENIED, e.code());
        return e;
    }

    @Test
    void noneAdmitsEveryNodeWithoutCounting() throws Exception {
        intro.modified(config("none"));
        intro.admit(node("n1", "web-1", "default"), "");
        intro.admit(node("n1", "web-1", "default"), "not.a.jwt");
        assertEquals(0, violations());
    }

    @Test
    void warnAdmitsWhatItCounts() throws Exception {
        assertEquals(ClientIntroduction.Enforcement.WARN, new ClientIntroduction(keyring, config("")).enforcement(),
                "Nomad's default");
        intro.admit(node("n1", "web-1", "default"), "");
        String expiring = token("{\"TTL\": \"1m\"}");
        clock.advance(Duration.ofMinutes(2));
        intro.admit(node("n2", "web-2", "default"), expiring);
        intro.admit(node("n3", "web-3", "default"), token("{\"NodeName\": \"other\"}"));
        assertEquals(3, violations());
        intro.admit(node("n4", "web-4", "default"), token("{\"NodeName\": \"web-4\"}"));
        assertEquals(3, violations(), "a valid token is no violation");
    }

    @Test
    void strictRefusesEveryNodeItCannotTell() throws Exception {
        intro.modified(config("strict"));
        Node web = node("n1", "web-1", "default");
        assertTrue(refused(web, "").getMessage().contains("node registration without introduction token"));

        String expiring = token("{\"NodeName\": \"web-1\", \"TTL\": \"1m\"}");
        clock.advance(Duration.ofSeconds(61));
        assertTrue(refused(web, expiring).getMessage().contains("token expired"));

        assertTrue(refused(web, token("{\"NodeName\": \"web-2\"}")).getMessage()
                .contains("token is for node web-2, not web-1"));
        assertTrue(refused(web, token("{\"NodePool\": \"edge\"}")).getMessage()
                .contains("token is for node pool edge, not default"));
        String valid = token("{\"NodeName\": \"web-1\"}");
        String forged = valid.substring(0, valid.lastIndexOf('.') + 1) + "AAAA";
        assertTrue(refused(web, forged).getMessage().contains("not signed by this cluster's keyring"));
        assertEquals(5, violations());

        intro.admit(web, valid);
        intro.admit(web, token("{}"));
        intro.admit(node("n2", "edge-1", "edge"), token("{\"NodePool\": \"edge\"}"));
        assertEquals(5, violations());
    }

    @Test
    void aNodeIdentityIntroducesOnlyItsOwnNode() throws Exception {
        intro.modified(config("strict"));
        Node web = node("n1", "web-1", "default");
        String identity = intro.identityFor(web, true).orElseThrow();
        intro.admit(web, identity);
        assertTrue(refused(node("n2", "web-2", "default"), identity).getMessage()
                .contains("node identity of another node"));
    }

    @Test
    void theModeFollowsTheConfiguration() throws Exception {
        Node web = node("n1", "web-1", "default");
        intro.admit(web, "");
        intro.modified(config("strict"));
        refused(web, "");
        intro.modified(config("none"));
        intro.admit(web, "");
    }

    @Test
    void nodeIdentitiesCarryNomadsClaimsAndAreRenewedInTheLastThird() throws Exception {
        Node web = node("n1", "web-1", "edge");
        Map<String, Object> claims = keyring.verify(intro.identityFor(web, true).orElseThrow()).orElseThrow();
        assertEquals("node:global:edge:n1:default", claims.get("sub"));
        assertEquals("n1", claims.get("nomad_node_id"));
        assertEquals("edge", claims.get("nomad_node_pool"));
        assertEquals("dc1", claims.get("nomad_node_datacenter"));
        assertEquals(List.of("nomadproject.io"), claims.get("aud"));
        long iat = ((Number) claims.get("iat")).longValue();
        assertEquals(iat + Duration.ofHours(24).toSeconds(), ((Number) claims.get("exp")).longValue());

        assertTrue(intro.identityFor(web, false).isEmpty(), "a heartbeat early in its life renews nothing");
        clock.advance(Duration.ofHours(17));
        assertTrue(intro.identityFor(web, false).isPresent(), "less than a third left: renewed");
        assertTrue(intro.identityFor(web, false).isEmpty());
        assertTrue(intro.identityFor(node("n2", "web-2", "default"), false).isPresent(),
                "a node this server signed nothing for yet (a new leader) gets one");
    }
}
