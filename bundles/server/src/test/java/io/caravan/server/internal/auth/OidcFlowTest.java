package io.caravan.server.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.acl.AclAuthMethod;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OidcFlowTest {
    private static final String REDIRECT = "http://localhost:4649/oidc/callback";
    private TestOidcProvider provider;
    private AclAuthMethod method;
    private final OidcFlow flow = new OidcFlow();

    @BeforeEach
    void start() throws Exception {
        provider = new TestOidcProvider();
        method = new AclAuthMethod("sso", AclAuthMethod.OIDC, AclAuthMethod.LOCAL, null, Duration.ofHours(1), false,
                new AclAuthMethod.Config(null, null, null, provider.url(), TestOidcProvider.CLIENT_ID,
                        TestOidcProvider.CLIENT_SECRET, List.of("groups"), true, false, null, null,
                        List.of(REDIRECT), null, null, null, null, null, null, null, false), null, null, 0, 0);
    }

    @AfterEach
    void stop() {
        provider.close();
    }

    private static Map<String, String> query(String url) {
        Map<String, String> q = new HashMap<>();
        for (String pair : URI.create(url).getRawQuery().split("&")) {
            String[] kv = pair.split("=", 2);
            q.put(kv[0], URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
        }
        return q;
    }

    @Test
    void theCodeOfALoginGivesTheIdTokensClaims() throws Exception {
        String url = flow.authUrl(method, REDIRECT, "client-nonce", Instant.now());
        assertTrue(url.startsWith(provider.url() + "/authorize?"), url);
        Map<String, String> q = query(url);
        assertEquals(TestOidcProvider.CLIENT_ID, q.get("client_id"));
        assertEquals("openid groups", q.get("scope"));
        assertEquals("code", q.get("response_type"));
        assertEquals(REDIRECT, q.get("redirect_uri"));
        assertEquals("S256", q.get("code_challenge_method"));
        provider.grant("code-1", Map.of("sub", "alice", "nonce", q.get("nonce")));
        assertEquals("alice", flow.complete(method, q.get("state"), "code-1", "client-nonce", REDIRECT,
                Instant.now()).path("sub").asText());
        // A state serves one login only.
        provider.grant("code-2", Map.of("sub", "alice", "nonce", q.get("nonce")));
        assertThrows(JwtVerifier.Rejected.class, () -> flow.complete(method, q.get("state"), "code-2",
                "client-nonce", REDIRECT, Instant.now()));
    }

    @Test
    void aWrongNonceClientNonceCodeOrRedirectIsRejected() throws Exception {
        Map<String, String> q = query(flow.authUrl(method, REDIRECT, "client-nonce", Instant.now()));
        provider.grant("replayed", Map.of("sub", "alice", "nonce", "another-login"));
        JwtVerifier.Rejected nonce = assertThrows(JwtVerifier.Rejected.class, () -> flow.complete(method,
                q.get("state"), "replayed", "client-nonce", REDIRECT, Instant.now()));
        assertEquals("the ID token's nonce does not match the login", nonce.getMessage());

        Map<String, String> q2 = query(flow.authUrl(method, REDIRECT, "client-nonce", Instant.now()));
        assertThrows(JwtVerifier.Rejected.class, () -> flow.complete(method, q2.get("state"), "x", "other-nonce",
                REDIRECT, Instant.now()));
        Map<String, String> q3 = query(flow.authUrl(method, REDIRECT, "client-nonce", Instant.now()));
        JwtVerifier.Rejected code = assertThrows(JwtVerifier.Rejected.class, () -> flow.complete(method,
                q3.get("state"), "never-granted", "client-nonce", REDIRECT, Instant.now()));
        assertEquals("the OIDC provider answered /token with HTTP 400", code.getMessage());

        JwtVerifier.Rejected redirect = assertThrows(JwtVerifier.Rejected.class, () -> flow.authUrl(method,
                "https://evil.example/cb", "client-nonce", Instant.now()));
        assertEquals("redirect URI https://evil.example/cb is not allowed by the auth method", redirect.getMessage());
    }

    @Test
    void aLoginExpires() throws Exception {
        Instant start = Instant.now();
        Map<String, String> q = query(flow.authUrl(method, REDIRECT, "n", start));
        provider.grant("late", Map.of("sub", "alice", "nonce", q.get("nonce")));
        JwtVerifier.Rejected e = assertThrows(JwtVerifier.Rejected.class, () -> flow.complete(method,
                q.get("state"), "late", "n", REDIRECT, start.plus(OidcFlow.PENDING_TTL)));
        assertEquals("unknown or expired OIDC state", e.getMessage());
    }

    @Test
    void aJwtMethodCanTakeItsKeysFromAnOidcProvider() throws Exception {
        AclAuthMethod.Config jwt = new AclAuthMethod.Config(null, null, null, provider.url(), null, null, null,
                false, false, List.of("api"), List.of(provider.url()), null, null, null, null, null, null, null, null,
                false);
        Instant now = Instant.now();
        String token = provider.sign(Map.of("sub", "svc", "aud", "api", "iss", provider.url(),
                "iat", now.getEpochSecond()));
        assertEquals("svc", JwtVerifier.verify(jwt, token, now).path("sub").asText());
        KeyPair other = TestJwts.rsa();
        assertThrows(JwtVerifier.Rejected.class, () -> JwtVerifier.verify(jwt, TestJwts.sign("RS256",
                other.getPrivate(), Map.of("sub", "svc", "aud", "api", "iss", provider.url(),
                        "iat", now.getEpochSecond())), now));
    }
}
