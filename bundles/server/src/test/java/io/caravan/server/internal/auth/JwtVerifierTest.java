package io.caravan.server.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.acl.AclAuthMethod;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JwtVerifierTest {
    private static final Instant NOW = Instant.parse("2026-11-25T02:00:00Z");
    private static final String ISSUER = "https://idp.example";

    private static AclAuthMethod.Config config(List<String> pems, String jwks, List<String> algs,
                                               Duration clockSkew) {
        return new AclAuthMethod.Config(pems, jwks, null, null, null, null, null, false, false,
                List.of("caravan"), List.of(ISSUER), null, null, algs, null, null, clockSkew, null, null, false);
    }

    private static Map<String, Object> claims(Object aud, String iss, Instant exp) {
        return Map.of("sub", "alice", "aud", aud, "iss", iss, "iat", NOW.minusSeconds(60).getEpochSecond(),
                "nbf", NOW.minusSeconds(60).getEpochSecond(), "exp", exp.getEpochSecond());
    }

    private static Map<String, Object> good() {
        return claims(List.of("other", "caravan"), ISSUER, NOW.plusSeconds(300));
    }

    @Test
    void aValidRs256TokenGivesItsClaims() throws Exception {
        KeyPair keys = TestJwts.rsa();
        JsonNode claims = JwtVerifier.verify(config(List.of(TestJwts.pem(keys.getPublic())), null, null, null),
                TestJwts.sign("RS256", keys.getPrivate(), good()), NOW);
        assertEquals("alice", claims.path("sub").asText());
    }

    @Test
    void es256AndEdDsaVerifyWhenTheMethodAllowsThem() throws Exception {
        KeyPair ec = TestJwts.ec();
        KeyPair ed = TestJwts.ed25519();
        AclAuthMethod.Config both = config(List.of(TestJwts.pem(ec.getPublic()), TestJwts.pem(ed.getPublic())),
                null, List.of("ES256", "EdDSA"), null);
        assertEquals("alice", JwtVerifier.verify(both, TestJwts.sign("ES256", ec.getPrivate(), good()), NOW)
                .path("sub").asText());
        assertEquals("alice", JwtVerifier.verify(both, TestJwts.sign("EdDSA", ed.getPrivate(), good()), NOW)
                .path("sub").asText());
        // RS256 is the default only when the method names no algorithms.
        KeyPair rsa = TestJwts.rsa();
        AclAuthMethod.Config esOnly = config(List.of(TestJwts.pem(rsa.getPublic())), null, List.of("ES256"), null);
        JwtVerifier.Rejected e = assertThrows(JwtVerifier.Rejected.class, () ->
                JwtVerifier.verify(esOnly, TestJwts.sign("RS256", rsa.getPrivate(), good()), NOW));
        assertEquals("JWT signing algorithm \"RS256\" is not allowed by the auth method", e.getMessage());
    }

    @Test
    void aTokenSignedByAnotherKeyIsRejected() throws Exception {
        KeyPair trusted = TestJwts.rsa();
        KeyPair other = TestJwts.rsa();
        AclAuthMethod.Config c = config(List.of(TestJwts.pem(trusted.getPublic())), null, null, null);
        JwtVerifier.Rejected e = assertThrows(JwtVerifier.Rejected.class, () ->
                JwtVerifier.verify(c, TestJwts.sign("RS256", other.getPrivate(), good()), NOW));
        assertEquals("failed to verify JWT signature", e.getMessage());
        // A valid signature over other claims: the payload swapped into a signed token.
        String signed = TestJwts.sign("RS256", trusted.getPrivate(), good());
        String forged = TestJwts.sign("RS256", other.getPrivate(), claims("caravan", ISSUER, NOW.plusSeconds(9999)));
        String[] a = signed.split("\\.");
        String[] b = forged.split("\\.");
        assertThrows(JwtVerifier.Rejected.class, () -> JwtVerifier.verify(c, a[0] + "." + b[1] + "." + a[2], NOW));
    }

    @Test
    void unsignedAndMalformedTokensAreRejected() throws Exception {
        KeyPair keys = TestJwts.rsa();
        AclAuthMethod.Config c = config(List.of(TestJwts.pem(keys.getPublic())), null, null, null);
        String[] parts = TestJwts.sign("RS256", keys.getPrivate(), good()).split("\\.");
        String none = Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"none\"}".getBytes());
        assertThrows(JwtVerifier.Rejected.class, () -> JwtVerifier.verify(c, none + "." + parts[1] + ".", NOW));
        assertThrows(JwtVerifier.Rejected.class, () -> JwtVerifier.verify(c, "not-a-jwt", NOW));
        assertThrows(JwtVerifier.Rejected.class, () -> JwtVerifier.verify(c, parts[0] + "." + parts[1] + ".%%", NOW));
    }

    @Test
    void theAudienceMustBeBound() throws Exception {
        KeyPair keys = TestJwts.rsa();
        AclAuthMethod.Config c = config(List.of(TestJwts.pem(keys.getPublic())), null, null, null);
        JwtVerifier.Rejected e = assertThrows(JwtVerifier.Rejected.class, () -> JwtVerifier.verify(c,
                TestJwts.sign("RS256", keys.getPrivate(), claims("someone-else", ISSUER, NOW.plusSeconds(300))), NOW));
        assertEquals("JWT audience (aud) is not bound by the auth method", e.getMessage());
        // A single audience as a string is accepted as well as a list.
        JwtVerifier.verify(c, TestJwts.sign("RS256", keys.getPrivate(), claims("caravan", ISSUER,
                NOW.plusSeconds(300))), NOW);
    }

    @Test
    void theIssuerMustBeBound() throws Exception {
        KeyPair keys = TestJwts.rsa();
        AclAuthMethod.Config c = config(List.of(TestJwts.pem(keys.getPublic())), null, null, null);
        JwtVerifier.Rejected e = assertThrows(JwtVerifier.Rejected.class, () -> JwtVerifier.verify(c,
                TestJwts.sign("RS256", keys.getPrivate(), claims("caravan", "https://evil.example",
                        NOW.plusSeconds(300))), NOW));
        assertEquals("JWT issuer (iss) is not bound by the auth method", e.getMessage());
    }

    @Test
    void anExpiredTokenIsRejectedUnlessWithinTheClockSkew() throws Exception {
        KeyPair keys = TestJwts.rsa();
        String justExpired = TestJwts.sign("RS256", keys.getPrivate(), claims("caravan", ISSUER,
                NOW.minusSeconds(30)));
        String longExpired = TestJwts.sign("RS256", keys.getPrivate(), claims("caravan", ISSUER,
                NOW.minusSeconds(90)));
        // No leeway configured: Nomad's default of 60 s of clock skew.
        AclAuthMethod.Config byDefault = config(List.of(TestJwts.pem(keys.getPublic())), null, null, null);
        assertEquals("alice", JwtVerifier.verify(byDefault, justExpired, NOW).path("sub").asText());
        JwtVerifier.Rejected e = assertThrows(JwtVerifier.Rejected.class, () ->
                JwtVerifier.verify(byDefault, longExpired, NOW));
        assertEquals("JWT is expired", e.getMessage());
        // A negative leeway means none; a larger one stretches the window.
        AclAuthMethod.Config strict = config(List.of(TestJwts.pem(keys.getPublic())), null, null,
                Duration.ofNanos(-1));
        assertThrows(JwtVerifier.Rejected.class, () -> JwtVerifier.verify(strict, justExpired, NOW));
        AclAuthMethod.Config lenient = config(List.of(TestJwts.pem(keys.getPublic())), null, null,
                Duration.ofMinutes(2));
        assertEquals("alice", JwtVerifier.verify(lenient, longExpired, NOW).path("sub").asText());
    }

    @Test
    void aTokenWithoutTimesIsRejectedAndAMissingExpFollowsIatPlusTheExpirationLeeway() throws Exception {
        KeyPair keys = TestJwts.rsa();
        AclAuthMethod.Config c = config(List.of(TestJwts.pem(keys.getPublic())), null, null, Duration.ofNanos(-1));
        JwtVerifier.Rejected e = assertThrows(JwtVerifier.Rejected.class, () -> JwtVerifier.verify(c,
                TestJwts.sign("RS256", keys.getPrivate(), Map.of("aud", "caravan", "iss", ISSUER)), NOW));
        assertEquals("JWT has no issued at (iat), not before (nbf) or expiration time (exp) claim", e.getMessage());
        Map<String, Object> recent = Map.of("aud", "caravan", "iss", ISSUER, "iat", NOW.minusSeconds(100)
                .getEpochSecond());
        Map<String, Object> old = Map.of("aud", "caravan", "iss", ISSUER, "iat", NOW.minusSeconds(200)
                .getEpochSecond());
        JwtVerifier.verify(c, TestJwts.sign("RS256", keys.getPrivate(), recent), NOW);
        assertThrows(JwtVerifier.Rejected.class, () -> JwtVerifier.verify(c, TestJwts.sign("RS256",
                keys.getPrivate(), old), NOW));
    }

    @Test
    void aTokenNotYetValidIsRejected() throws Exception {
        KeyPair keys = TestJwts.rsa();
        AclAuthMethod.Config c = config(List.of(TestJwts.pem(keys.getPublic())), null, null, null);
        String early = TestJwts.sign("RS256", keys.getPrivate(), Map.of("aud", "caravan", "iss", ISSUER,
                "nbf", NOW.plusSeconds(600).getEpochSecond()));
        assertThrows(JwtVerifier.Rejected.class, () -> JwtVerifier.verify(c, early, NOW));
    }

    @Test
    void keysComeFromAJwksFileChosenByKid(@TempDir Path dir) throws Exception {
        KeyPair rsa = TestJwts.rsa();
        KeyPair ec = TestJwts.ec();
        KeyPair ed = TestJwts.ed25519();
        RSAPublicKey r = (RSAPublicKey) rsa.getPublic();
        ECPublicKey e = (ECPublicKey) ec.getPublic();
        byte[] edRaw = Arrays.copyOfRange(ed.getPublic().getEncoded(), 12, 44);
        String jwks = """
                {"keys": [
                  {"kty": "RSA", "kid": "r1", "use": "sig", "n": "%s", "e": "%s"},
                  {"kty": "EC", "kid": "e1", "crv": "P-256", "x": "%s", "y": "%s"},
                  {"kty": "OKP", "kid": "d1", "crv": "Ed25519", "x": "%s"}]}
                """.formatted(b64(r.getModulus()), b64(r.getPublicExponent()), b64(e.getW().getAffineX(), 32),
                b64(e.getW().getAffineY(), 32), Base64.getUrlEncoder().withoutPadding().encodeToString(edRaw));
        Path file = dir.resolve("jwks.json");
        Files.writeString(file, jwks);
        AclAuthMethod.Config c = config(List.of(), file.toUri().toString(), List.of("RS256", "ES256", "EdDSA"),
                null);
        assertEquals("alice", JwtVerifier.verify(c, TestJwts.sign("RS256", rsa.getPrivate(), Map.of("kid", "r1"),
                good()), NOW).path("sub").asText());
        assertEquals("alice", JwtVerifier.verify(c, TestJwts.sign("ES256", ec.getPrivate(), Map.of("kid", "e1"),
                good()), NOW).path("sub").asText());
        assertEquals("alice", JwtVerifier.verify(c, TestJwts.sign("EdDSA", ed.getPrivate(), Map.of("kid", "d1"),
                good()), NOW).path("sub").asText());
        // A kid names one key: the right key under another kid does not count.
        assertThrows(JwtVerifier.Rejected.class, () -> JwtVerifier.verify(c, TestJwts.sign("RS256",
                rsa.getPrivate(), Map.of("kid", "e1"), good()), NOW));
    }

    @Test
    void aJwksIsFetchedOncePerMinute(@TempDir Path dir) throws Exception {
        KeyPair first = TestJwts.rsa();
        KeyPair second = TestJwts.rsa();
        Path file = dir.resolve("jwks.json");
        Files.writeString(file, jwks((RSAPublicKey) first.getPublic()));
        AclAuthMethod.Config c = config(List.of(), file.toUri().toString(), null, null);
        JwtVerifier.verify(c, TestJwts.sign("RS256", first.getPrivate(), good()), NOW);
        // The provider rotates its key: logins within the minute still see the keys fetched first.
        Files.writeString(file, jwks((RSAPublicKey) second.getPublic()));
        String bySecond = TestJwts.sign("RS256", second.getPrivate(), good());
        Instant soon = NOW.plusSeconds(30);
        assertThrows(JwtVerifier.Rejected.class, () -> JwtVerifier.verify(c, bySecond, soon));
        assertEquals("alice", JwtVerifier.verify(c, bySecond, NOW.plus(JwtVerifier.JWKS_TTL)).path("sub").asText());
    }

    private static String jwks(RSAPublicKey key) {
        return "{\"keys\": [{\"kty\": \"RSA\", \"n\": \"" + b64(key.getModulus()) + "\", \"e\": \""
                + b64(key.getPublicExponent()) + "\"}]}";
    }

    @Test
    void pemKeysAndCertificatesParseAndJunkDoesNot() throws Exception {
        assertTrue(JwtVerifier.parsePem(TestJwts.pem(TestJwts.ec().getPublic())) instanceof ECPublicKey);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () ->
                JwtVerifier.parsePem("hello"));
        assertEquals("not a PEM \"PUBLIC KEY\" or \"CERTIFICATE\" block", e.getMessage());
        assertThrows(IllegalArgumentException.class, () ->
                JwtVerifier.parsePem("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"));
    }

    private static String b64(BigInteger n) {
        byte[] bytes = n.toByteArray();
        if (bytes[0] == 0 && bytes.length > 1) {
            bytes = Arrays.copyOfRange(bytes, 1, bytes.length);
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static String b64(BigInteger n, int length) {
        byte[] bytes = n.toByteArray();
        byte[] out = new byte[length];
        int copy = Math.min(bytes.length, length);
        System.arraycopy(bytes, bytes.length - copy, out, length - copy, copy);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(out);
    }
}
