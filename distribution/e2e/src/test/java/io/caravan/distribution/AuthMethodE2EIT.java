package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Single sign-on with a JWT on a real dev agent with ACLs on: a management token creates a JWT auth method (a public
 * key generated here) and a binding rule; a JWT signed here logs in and gets a token that does what the bound policy
 * allows and no more; bad JWTs get 403 and create no token. Then an OIDC login against a provider started in the
 * test: auth-url, the provider's code, complete-auth.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AuthMethodE2EIT {
    private static final String ISSUER = "https://idp.test";
    private static final String JOB = """
            {"Job": {"ID": "sso-job", "Type": "batch", "Datacenters": ["dc1"], "TaskGroups": [{"Name": "g",
              "Tasks": [{"Name": "t", "Driver": "raw_exec", "Config": {"command": "/bin/true"}}]}]}}""";
    private static Path dir;
    private static AgentProcess agent;
    private static String management;
    private static KeyPair idp;
    private static String ruleId;
    private static String loggedIn;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("caravan-sso-");
        agent = AgentProcess.startDev(dir, ", \"data_dir\": \"" + dir.resolve("data") + "\", \"acl\": {\"enabled\": "
                + "true}");
        HttpResponse<String> bootstrap = agent.call("POST", "/v1/acl/bootstrap", null, null);
        assertStatus(200, bootstrap);
        management = AgentProcess.JSON.readTree(bootstrap.body()).path("SecretID").asText();
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);
        idp = rsa.generateKeyPair();
    }

    @AfterAll
    static void stop() throws Exception {
        if (agent != null) {
            agent.close();
        }
        AgentProcess.deleteTree(dir);
    }

    private static void assertStatus(int status, HttpResponse<String> response) {
        assertEquals(status, response.statusCode(), response.request().method() + " " + response.request().uri()
                + " -> " + response.body());
    }

    private static String pem() {
        return "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder().encodeToString(idp.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
    }

    /** An RS256 JWT as the identity provider would issue it. */
    private static String jwt(PrivateKey key, Map<String, Object> claims) throws Exception {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String signed = b64.encodeToString("{\"alg\":\"RS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8))
                + "." + b64.encodeToString(AgentProcess.JSON.writeValueAsBytes(claims));
        Signature s = Signature.getInstance("SHA256withRSA");
        s.initSign(key);
        s.update(signed.getBytes(StandardCharsets.US_ASCII));
        return signed + "." + b64.encodeToString(s.sign());
    }

    private static Map<String, Object> claims(String audience, String issuer, Instant expires) {
        return Map.of("sub", "alice", "groups", List.of("dev", "qa"), "aud", audience, "iss", issuer,
                "iat", Instant.now().minusSeconds(10).getEpochSecond(), "exp", expires.getEpochSecond());
    }

    private static HttpResponse<String> login(String token) throws Exception {
        ObjectNode body = AgentProcess.JSON.createObjectNode().put("AuthMethodName", "corp").put("LoginToken", token);
        return agent.call("POST", "/v1/acl/login", null, body.toString());
    }

    private static int tokenCount() throws Exception {
        HttpResponse<String> tokens = agent.call("GET", "/v1/acl/tokens", management, null);
        assertStatus(200, tokens);
        return AgentProcess.JSON.readTree(tokens.body()).size();
    }

    @Test
    @Order(1)
    void managementCreatesAJwtMethodAndABindingRule() throws Exception {
        assertStatus(200, agent.call("PUT", "/v1/acl/policy/readonly", management,
                "{\"Rules\": \"namespace \\\"default\\\" { policy = \\\"read\\\" }\"}"));
        assertStatus(200, agent.call("PUT", "/v1/jobs", management, JOB));
        ObjectNode method = AgentProcess.JSON.createObjectNode().put("Name", "corp").put("Type", "JWT")
                .put("TokenLocality", "local").put("MaxTokenTTL", "1h").put("Default", true)
                .put("TokenNameFormat", "${auth_method_name}-${value.user}");
        ObjectNode config = method.putObject("Config");
        config.putArray("JWTValidationPubKeys").add(pem());
        config.putArray("BoundAudiences").add("caravan");
        config.putArray("BoundIssuer").add(ISSUER);
        config.putObject("ClaimMappings").put("sub", "user");
        config.putObject("ListClaimMappings").put("groups", "groups");

        assertStatus(403, agent.call("POST", "/v1/acl/auth-method", null, method.toString()));
        HttpResponse<String> tooLong = agent.call("POST", "/v1/acl/auth-method", management,
                method.deepCopy().put("MaxTokenTTL", "48h").toString());
        assertStatus(400, tooLong);
        assertTrue(tooLong.body().startsWith("MaxTokenTTL: "), tooLong.body());

        HttpResponse<String> created = agent.call("POST", "/v1/acl/auth-method", management, method.toString());
        assertStatus(200, created);
        JsonNode stored = AgentProcess.JSON.readTree(created.body());
        assertEquals("1h0m0s", stored.path("MaxTokenTTL").asText());
        assertEquals(pem(), stored.path("Config").path("JWTValidationPubKeys").path(0).asText());

        // Anyone may list methods (a login page does), and sees no configuration.
        HttpResponse<String> list = agent.call("GET", "/v1/acl/auth-methods", null, null);
        assertStatus(200, list);
        JsonNode stubs = AgentProcess.JSON.readTree(list.body());
        assertEquals(1, stubs.size(), list.body());
        assertEquals("corp", stubs.path(0).path("Name").asText());
        assertFalse(stubs.path(0).has("Config"), list.body());
        assertStatus(403, agent.call("GET", "/v1/acl/auth-method/corp", null, null));
        assertStatus(200, agent.call("GET", "/v1/acl/auth-method/corp", management, null));

        HttpResponse<String> badRule = agent.call("POST", "/v1/acl/binding-rule", management,
                "{\"AuthMethod\": \"corp\", \"BindType\": \"policy\", \"BindName\": \"readonly\","
                        + " \"Selector\": \"list.groups contains\"}");
        assertStatus(400, badRule);
        assertTrue(badRule.body().startsWith("Selector: "), badRule.body());
        HttpResponse<String> rule = agent.call("POST", "/v1/acl/binding-rule", management,
                "{\"AuthMethod\": \"corp\", \"BindType\": \"policy\", \"BindName\": \"readonly\","
                        + " \"Selector\": \"\\\"dev\\\" in list.groups\"}");
        assertStatus(200, rule);
        ruleId = AgentProcess.JSON.readTree(rule.body()).path("ID").asText();
        HttpResponse<String> rules = agent.call("GET", "/v1/acl/binding-rules", management, null);
        assertStatus(200, rules);
        assertEquals(ruleId, AgentProcess.JSON.readTree(rules.body()).path(0).path("ID").asText());
        assertStatus(403, agent.call("GET", "/v1/acl/binding-rules", null, null));
    }

    @Test
    @Order(2)
    void aSignedJwtLogsInAndItsTokenDoesWhatThePolicyAllows() throws Exception {
        HttpResponse<String> response = login(jwt(idp.getPrivate(), claims("caravan", ISSUER,
                Instant.now().plusSeconds(600))));
        assertStatus(200, response);
        JsonNode token = AgentProcess.JSON.readTree(response.body());
        assertEquals("client", token.path("Type").asText());
        assertEquals("corp-alice", token.path("Name").asText());
        assertEquals(List.of("readonly"), List.of(token.path("Policies").path(0).asText()));
        assertEquals(3_600_000_000_000L, token.path("ExpirationTTL").asLong(), response.body());
        assertFalse(token.path("Global").asBoolean());
        loggedIn = token.path("SecretID").asText();

        assertStatus(200, agent.call("GET", "/v1/jobs", loggedIn, null));
        assertStatus(200, agent.call("GET", "/v1/job/sso-job", loggedIn, null));
        assertStatus(403, agent.call("PUT", "/v1/jobs", loggedIn, JOB));
        assertStatus(403, agent.call("GET", "/v1/acl/tokens", loggedIn, null));
        HttpResponse<String> self = agent.call("GET", "/v1/acl/token/self", loggedIn, null);
        assertStatus(200, self);
        assertEquals(token.path("AccessorID").asText(),
                AgentProcess.JSON.readTree(self.body()).path("AccessorID").asText());
    }

    @Test
    @Order(3)
    void badJwtsAre403sThatCreateNoToken() throws Exception {
        int before = tokenCount();
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);
        PrivateKey stranger = rsa.generateKeyPair().getPrivate();
        Instant later = Instant.now().plusSeconds(600);
        Map<String, String> cases = Map.of(
                "wrong signature", jwt(stranger, claims("caravan", ISSUER, later)),
                "wrong audience", jwt(idp.getPrivate(), claims("elsewhere", ISSUER, later)),
                "wrong issuer", jwt(idp.getPrivate(), claims("caravan", "https://evil.test", later)),
                "expired", jwt(idp.getPrivate(), claims("caravan", ISSUER, Instant.now().minusSeconds(600))),
                "garbage", "not.a.jwt");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            HttpResponse<String> response = login(c.getValue());
            assertEquals(403, response.statusCode(), c.getKey() + " -> " + response.body());
            assertTrue(response.body().startsWith("Permission denied"), c.getKey() + " -> " + response.body());
        }
        // A valid JWT that no rule matches is refused too.
        Map<String, Object> outsider = Map.of("sub", "eve", "groups", List.of("sales"), "aud", "caravan",
                "iss", ISSUER, "iat", Instant.now().getEpochSecond(), "exp", later.getEpochSecond());
        HttpResponse<String> unmatched = login(jwt(idp.getPrivate(), outsider));
        assertStatus(403, unmatched);
        assertEquals("Permission denied: no binding rule of auth method corp matched", unmatched.body().strip());
        HttpResponse<String> missing = agent.call("POST", "/v1/acl/login", null, "{\"AuthMethodName\": \"corp\"}");
        assertStatus(400, missing);
        assertTrue(missing.body().startsWith("LoginToken: "), missing.body());
        assertEquals(before, tokenCount());
    }

    @Test
    @Order(4)
    void deletingTheMethodDeletesItsRulesAndEndsLogins() throws Exception {
        assertStatus(403, agent.call("DELETE", "/v1/acl/auth-method/corp", loggedIn, null));
        assertStatus(200, agent.call("DELETE", "/v1/acl/auth-method/corp", management, null));
        assertStatus(404, agent.call("GET", "/v1/acl/binding-rule/" + ruleId, management, null));
        assertStatus(404, login(jwt(idp.getPrivate(), claims("caravan", ISSUER, Instant.now().plusSeconds(600)))));
    }

    @Test
    @Order(5)
    void anOidcLoginThroughAProviderStartedHere() throws Exception {
        HttpServer provider = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        String issuer = "http://127.0.0.1:" + provider.getAddress().getPort();
        RSAPublicKey key = (RSAPublicKey) idp.getPublic();
        Map<String, String> nonceByCode = new ConcurrentHashMap<>();
        provider.createContext("/.well-known/openid-configuration", ex -> respond(ex, """
                {"issuer": "%1$s", "authorization_endpoint": "%1$s/authorize", "token_endpoint": "%1$s/token",
                 "jwks_uri": "%1$s/jwks"}""".formatted(issuer)));
        provider.createContext("/jwks", ex -> respond(ex, "{\"keys\": [{\"kty\": \"RSA\", \"n\": \""
                + unsigned(key.getModulus()) + "\", \"e\": \"" + unsigned(key.getPublicExponent()) + "\"}]}"));
        provider.createContext("/token", ex -> {
            String form = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String code = form.replaceAll(".*(^|&)code=([^&]*).*", "$2");
            String nonce = nonceByCode.remove(code);
            try {
                respond(ex, nonce == null || !form.contains("client_secret=s3cret") ? "{}" : "{\"id_token\": \""
                        + jwt(idp.getPrivate(), Map.of("sub", "olivia", "groups", List.of("dev"), "aud", "caravan-ui",
                        "iss", issuer, "nonce", nonce, "iat", Instant.now().getEpochSecond(),
                        "exp", Instant.now().plusSeconds(300).getEpochSecond()))
                        + "\"}");
            } catch (Exception e) {
                respond(ex, "{}");
            }
        });
        provider.start();
        try {
            String redirect = "http://localhost:4649/oidc/callback";
            ObjectNode method = AgentProcess.JSON.createObjectNode().put("Name", "sso").put("Type", "OIDC")
                    .put("TokenLocality", "global").put("MaxTokenTTL", "30m");
            method.putObject("Config").put("OIDCDiscoveryURL", issuer).put("OIDCClientID", "caravan-ui")
                    .put("OIDCClientSecret", "s3cret").putArray("AllowedRedirectURIs").add(redirect);
            ((ObjectNode) method.get("Config")).putObject("ListClaimMappings").put("groups", "groups");
            assertStatus(200, agent.call("POST", "/v1/acl/auth-method", management, method.toString()));
            assertStatus(200, agent.call("POST", "/v1/acl/binding-rule", management, "{\"AuthMethod\": \"sso\","
                    + " \"BindType\": \"policy\", \"BindName\": \"readonly\","
                    + " \"Selector\": \"\\\"dev\\\" in list.groups\"}"));

            HttpResponse<String> start = agent.call("POST", "/v1/acl/oidc/auth-url", null, "{\"AuthMethodName\": "
                    + "\"sso\", \"RedirectURI\": \"" + redirect + "\", \"ClientNonce\": \"cn-1\"}");
            assertStatus(200, start);
            String authUrl = AgentProcess.JSON.readTree(start.body()).path("AuthURL").asText();
            assertTrue(authUrl.startsWith(issuer + "/authorize?"), authUrl);
            String state = authUrl.replaceAll(".*[?&]state=([^&]*).*", "$1");
            String nonce = authUrl.replaceAll(".*[?&]nonce=([^&]*).*", "$1");
            // The user signs in at the provider, which redirects back with a code.
            nonceByCode.put("code-1", nonce);
            String complete = "{\"AuthMethodName\": \"sso\", \"ClientNonce\": \"cn-1\", \"State\": \"" + state
                    + "\", \"Code\": \"code-1\", \"RedirectURI\": \"" + redirect + "\"}";
            HttpResponse<String> done = agent.call("POST", "/v1/acl/oidc/complete-auth", null, complete);
            assertStatus(200, done);
            JsonNode token = AgentProcess.JSON.readTree(done.body());
            assertEquals("readonly", token.path("Policies").path(0).asText(), done.body());
            assertTrue(token.path("Global").asBoolean());
            assertStatus(200, agent.call("GET", "/v1/jobs", token.path("SecretID").asText(), null));
            // The state was used up: replaying the callback gets nothing.
            nonceByCode.put("code-1", nonce);
            assertStatus(403, agent.call("POST", "/v1/acl/oidc/complete-auth", null, complete));
        } finally {
            provider.stop(0);
        }
    }

    private static void respond(HttpExchange ex, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static String unsigned(BigInteger n) {
        byte[] bytes = n.toByteArray();
        int skip = bytes[0] == 0 && bytes.length > 1 ? 1 : 0;
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOfRange(bytes, skip, bytes.length));
    }
}
