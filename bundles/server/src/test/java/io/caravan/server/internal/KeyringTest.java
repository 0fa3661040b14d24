package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.json.NomadJson;
import io.caravan.http.ApiResponse;
import io.caravan.server.internal.Keyring.RootKey;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.VerificationJwkSelector;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.jose4j.jwt.consumer.JwtConsumer;
import org.jose4j.jwt.consumer.JwtConsumerBuilder;
import org.jose4j.keys.resolvers.JwksVerificationKeyResolver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The keyring on one state store with two servers' keystores: the first key, sealing copies for a later server,
 * rotation, removal and GC, the API, and the JWKS checked by an independent library (jose4j).
 */
class KeyringTest {
    private final ServerState state = new ServerState();
    private final RaftWrites raft = JobLimitsTest.writes(state, new AtomicLong());
    private final EvalBrokerTest.MutableClock clock = new EvalBrokerTest.MutableClock();
    private final KeyringService a = new KeyringService(state.store(), raft, Keyring.newKeystorePair(), clock, false);
    private final KeyringService b = new KeyringService(state.store(), raft, Keyring.newKeystorePair(), clock, false);
    private final KeyringDuties duties = new KeyringDuties(state.store()::snapshot, a, raft, config("720h", "1h"));

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        state.deactivate();
    }

    static KeyringDuties.Config config(String rotation, String gc) {
        return new KeyringDuties.Config() {
            public Class<? extends Annotation> annotationType() { return KeyringDuties.Config.class; }
            public String root_key_rotation_threshold() { return rotation; }
            public String root_key_gc_interval() { return "10m"; }
            public String root_key_gc_threshold() { return gc; }
        };
    }

    static KeyringRoutes.Config issuer(String issuer) {
        return new KeyringRoutes.Config() {
            public Class<? extends Annotation> annotationType() { return KeyringRoutes.Config.class; }
            public String oidc_issuer() { return issuer; }
        };
    }

    private List<RootKey> keys() {
        return state.store().snapshot().all(Keyring.ROOT_KEYS).toList();
    }

    private RootKey firstKey() throws Exception {
        a.tick(); // publishes a's keystore
        RootKey key = duties.ensureActive().orElseThrow().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(Keyring.ACTIVE, keys().get(0).state());
        return key;
    }

    @Test
    void theFirstLeaderCreatesAKeyOnlyOnceItsKeystoreIsPublished() throws Exception {
        assertTrue(duties.ensureActive().isEmpty(), "no keystore published: no key yet");
        RootKey key = firstKey();
        assertEquals(1, keys().size());
        assertEquals(Keyring.ALGORITHM, key.algorithm());
        assertTrue(duties.ensureActive().isEmpty(), "an active key younger than the threshold stays");
        assertTrue(a.open(keys().get(0)).isPresent());
    }

    @Test
    void theLogCarriesKeyMaterialOnlySealed() throws Exception {
        firstKey();
        RootKey stored = keys().get(0);
        Keyring.Material m = a.open(stored).orElseThrow();
        String entry = new String(CommandCodec.encode(new Command.RootKeyUpsert(stored)), StandardCharsets.UTF_8);
        assertFalse(entry.contains(Keyring.b64(m.signingKey().getEncoded())), "private key in clear");
        assertFalse(entry.contains(Keyring.b64(m.dataKey())), "data key in clear");
        // and the copy opens only with its own keystore
        assertTrue(b.open(stored).isEmpty());
    }

    @Test
    void aServerThatJoinsLaterGetsASealedCopyFromOneThatHoldsTheKey() throws Exception {
        firstKey();
        String token = a.sign(Map.of("sub", "x"));
        b.tick(); // publishes b's keystore
        assertTrue(b.open(keys().get(0)).isEmpty());
        a.tick(); // a seals a copy for b
        assertEquals(2, keys().get(0).wrapped().size());
        assertTrue(b.open(keys().get(0)).isPresent());
        assertEquals("x", b.verify(token).orElseThrow().get("sub"));
        assertEquals("x", a.verify(b.sign(Map.of("sub", "x"))).orElseThrow().get("sub"));
    }

    @Test
    void verificationRefusesForgedExpiredAndForeignTokens() throws Exception {
        firstKey();
        long now = clock.millis() / 1000;
        String token = a.sign(Map.of("sub", "x", "exp", now + 60, "nbf", now));
        assertTrue(a.verify(token).isPresent());
        String[] parts = token.split("\\.");
        String forged = parts[0] + "." + java.util.Base64.getUrlEncoder().withoutPadding()
                .encodeToString("{\"sub\":\"admin\"}".getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
        assertTrue(a.verify(forged).isEmpty());
        assertTrue(a.verify("not.a.jwt").isEmpty());
        clock.advance(Duration.ofSeconds(61));
        assertTrue(a.verify(token).isEmpty(), "expired");
    }

    @Test
    void rotationKeepsOldKeysVerifyingAndGcRemovesThemPastTheThreshold() throws Exception {
        RootKey first = firstKey();
        String old = a.sign(Map.of("sub", "old"));
        KeyringRoutes routes = new KeyringRoutes(state.store(), raft, a, issuer(""), clock);
        RoutesHarness h = new RoutesHarness();
        h.add(routes);
        try {
            ApiResponse rotated = call(h, "PUT", "/v1/operator/keyring/rotate", Map.of());
            JsonNode key = NomadJson.mapper().valueToTree(rotated.body()).path("Key");
            String second = key.path("KeyID").asText();
            assertNotEquals(first.keyId(), second);
            assertEquals("active", key.path("State").asText());
            JsonNode list = NomadJson.mapper().valueToTree(call(h, "GET", "/v1/operator/keyring/keys", Map.of())
                    .body());
            assertEquals(2, list.size());
            assertEquals(first.keyId(), list.get(0).path("KeyID").asText());
            assertEquals("inactive", list.get(0).path("State").asText());
            assertFalse(list.get(0).has("PublicKey"), "metadata only");
            assertEquals("old", a.verify(old).orElseThrow().get("sub"), "signed before rotation, verifies after");
            assertEquals(second, header(a.sign(Map.of("sub", "new"))).path("kid").asText());

            CaravanException active = h.refused("DELETE", "/v1/operator/keyring/key/{id}", Map.of("id", second),
                    null);
            assertEquals(ErrorCode.BAD_REQUEST, active.code());
            CaravanException prepublish = h.refused("PUT", "/v1/operator/keyring/rotate",
                    Map.of("?prepublish", "1h"), null);
            assertTrue(prepublish.getMessage().contains("prepublish"), prepublish.getMessage());

            assertEquals(0, duties.gc(), "younger than the GC threshold");
            clock.advance(Duration.ofHours(2));
            assertEquals(1, duties.gc());
            assertEquals(List.of(second), keys().stream().map(RootKey::keyId).toList());
            assertTrue(a.verify(old).isEmpty(), "its key is gone");
        } finally {
            h.close();
        }
    }

    @Test
    void theActiveKeyRotatesPastTheThreshold() throws Exception {
        RootKey first = firstKey();
        clock.advance(Duration.ofHours(721));
        RootKey second = duties.ensureActive().orElseThrow().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertNotEquals(first.keyId(), second.keyId());
        assertEquals(1, keys().stream().filter(RootKey::active).count());
        assertEquals(0, duties.gc(), "inactive only since now, though created 721h ago");
        clock.advance(Duration.ofMinutes(61));
        assertEquals(1, duties.gc());
    }

    @Test
    void anIndependentLibraryVerifiesOurJwtAgainstTheJwks() throws Exception {
        firstKey();
        long now = clock.millis() / 1000;
        String jwt = a.sign(Map.of("sub", "global:default:web:web:web:default", "aud", List.of("nomadproject.io"),
                "iat", now, "nbf", now, "exp", now + 3600));
        String jwks = NomadJson.mapper().writeValueAsString(a.jwks());
        JwtConsumer consumer = new JwtConsumerBuilder()
                .setVerificationKeyResolver(new JwksVerificationKeyResolver(new JsonWebKeySet(jwks).getJsonWebKeys()))
                .setExpectedAudience("nomadproject.io").setRequireExpirationTime()
                .setEvaluationTime(NumericDate.fromSeconds(now + 10)).build();
        assertEquals("RS256", header(jwt).path("alg").asText(), "Nomad's default algorithm");
        JwtClaims claims = consumer.processToClaims(jwt);
        assertEquals("global:default:web:web:web:default", claims.getSubject());
        // and a token signed by another key set is refused by the same library
        KeyringService other = new KeyringService(new ServerState().store(), null, Keyring.newKeystorePair(), clock,
                false);
        assertTrue(other.verify(jwt).isEmpty());
        JsonWebSignature jws = new JsonWebSignature();
        jws.setCompactSerialization(jwt);
        assertTrue(new VerificationJwkSelector().select(jws, new JsonWebKeySet(jwks).getJsonWebKeys()) != null);
    }

    @Test
    void aKeyMadeBeforeRsaSignsEdDsaThatAnIndependentLibraryVerifies() throws Exception {
        a.tick();
        Keyring.Material full = Keyring.generate();
        Keyring.Material legacy = new Keyring.Material(full.keyId(), full.signingKey(), full.verifyingKey(),
                full.dataKey());
        raft.submit(new Command.RootKeyUpsert(Keyring.row(legacy, clock.millis() * 1_000_000L,
                state.store().snapshot().all(Keyring.KEYSTORES).toList()))).toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
        long now = clock.millis() / 1000;
        String jwt = a.sign(Map.of("sub", "legacy", "iat", now, "exp", now + 60));
        assertEquals("EdDSA", header(jwt).path("alg").asText());
        assertEquals("legacy", a.verify(jwt).orElseThrow().get("sub"));
        String jwks = NomadJson.mapper().writeValueAsString(a.jwks());
        JwtConsumer consumer = new JwtConsumerBuilder()
                .setVerificationKeyResolver(new JwksVerificationKeyResolver(new JsonWebKeySet(jwks).getJsonWebKeys()))
                .setSkipDefaultAudienceValidation().setEvaluationTime(NumericDate.fromSeconds(now + 1)).build();
        assertEquals("legacy", consumer.processToClaims(jwt).getSubject());
    }

    @Test
    void anRs256TokenWithAnEdDsaHeaderOrAnotherKeysSignatureIsRefused() throws Exception {
        firstKey();
        String jwt = a.sign(Map.of("sub", "x"));
        String[] parts = jwt.split("\\.");
        String swapped = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
                "{\"alg\":\"EdDSA\",\"kid\":\"".concat(keys().get(0).keyId()).concat("\"}").getBytes())
                + "." + parts[1] + "." + parts[2];
        assertTrue(a.verify(swapped).isEmpty());
        assertTrue(a.verify(parts[0] + "." + parts[1] + "." + parts[2].substring(2)).isEmpty());
    }

    @Test
    void aFullRotationLeavesTheReplacedKeyRekeying() throws Exception {
        RootKey first = firstKey();
        RoutesHarness h = new RoutesHarness();
        try {
            h.add(new KeyringRoutes(state.store(), raft, a, issuer(""), clock));
            call(h, "PUT", "/v1/operator/keyring/rotate", Map.of("?full", "true"));
            assertEquals(Keyring.REKEYING, state.store().snapshot().get(Keyring.ROOT_KEYS, first.keyId())
                    .orElseThrow().state());
            CaravanException inUse = h.refused("DELETE", "/v1/operator/keyring/key/{id}",
                    Map.of("id", first.keyId()), null);
            assertEquals(KeyringApply.IN_USE, inUse.getMessage());
        } finally {
            h.close();
        }
    }

    @Test
    void discoveryDocumentsAreServedAndOidcOnlyWithAnIssuer() throws Exception {
        firstKey();
        RoutesHarness h = new RoutesHarness();
        try {
            h.add(new KeyringRoutes(state.store(), raft, a, issuer(""), clock));
            JsonNode jwks = NomadJson.mapper().valueToTree(call(h, "GET", "/.well-known/jwks.json", Map.of()).body());
            assertEquals(2, jwks.path("keys").size(), "the key's RSA and Ed25519 halves");
            assertEquals("RSA", jwks.path("keys").get(0).path("kty").asText());
            assertEquals("RS256", jwks.path("keys").get(0).path("alg").asText());
            assertEquals("AQAB", jwks.path("keys").get(0).path("e").asText());
            assertEquals("OKP", jwks.path("keys").get(1).path("kty").asText());
            assertEquals(keys().get(0).keyId(), jwks.path("keys").get(0).path("kid").asText());
            assertEquals(keys().get(0).keyId(), jwks.path("keys").get(1).path("kid").asText());
            assertEquals(ErrorCode.NOT_FOUND, h.refused("GET", "/.well-known/openid-configuration", Map.of(), null)
                    .code());
        } finally {
            h.close();
        }
        RoutesHarness h2 = new RoutesHarness();
        try {
            h2.add(new KeyringRoutes(state.store(), raft, a, issuer("https://nomad.example.com"), clock));
            JsonNode doc = NomadJson.mapper().valueToTree(call(h2, "GET", "/.well-known/openid-configuration",
                    Map.of()).body());
            assertEquals("https://nomad.example.com", doc.path("issuer").asText());
            assertEquals("https://nomad.example.com/.well-known/jwks.json", doc.path("jwks_uri").asText());
            assertEquals("RS256", doc.path("id_token_signing_alg_values_supported").get(0).asText());
        } finally {
            h2.close();
        }
    }

    @Test
    void theKeystoreIsCreatedOnceInTheDataDirAndReadBack() throws Exception {
        KeyPair first = KeyringService.loadKeystore(dir.toString());
        KeyPair again = KeyringService.loadKeystore(dir.toString());
        assertEquals(Keyring.fingerprint(first.getPublic()), Keyring.fingerprint(again.getPublic()));
        Path file = dir.resolve("server/keystore/kek");
        assertTrue(Files.exists(file));
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(file)));
    }

    private static ApiResponse call(RoutesHarness h, String method, String pattern, Map<String, String> params)
            throws Exception {
        return h.call(method, pattern, params, null);
    }

    private static JsonNode header(String jwt) throws Exception {
        return NomadJson.mapper().readTree(java.util.Base64.getUrlDecoder().decode(jwt.split("\\.")[0]));
    }
}
