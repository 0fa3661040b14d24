package io.caravan.server.internal.auth;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.interfaces.RSAPublicKey;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A small OIDC provider on a free loopback port: discovery, JWKS and a token endpoint that trades a code the test
 * {@link #grant granted} (with the nonce it read from the auth URL) for an RS256 ID token.
 */
public final class TestOidcProvider implements AutoCloseable {
    public static final String CLIENT_ID = "caravan-client";
    public static final String CLIENT_SECRET = "s3cret";
    private final HttpServer server;
    private final KeyPair keys;
    private final Map<String, Map<String, Object>> claimsByCode = new ConcurrentHashMap<>();

    public TestOidcProvider() throws Exception {
        keys = TestJwts.rsa();
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/.well-known/openid-configuration", ex -> reply(ex, 200, """
                {"issuer": "%1$s", "authorization_endpoint": "%1$s/authorize", "token_endpoint": "%1$s/token",
                 "jwks_uri": "%1$s/jwks"}""".formatted(url())));
        server.createContext("/jwks", ex -> {
            RSAPublicKey key = (RSAPublicKey) keys.getPublic();
            reply(ex, 200, "{\"keys\": [{\"kty\": \"RSA\", \"kid\": \"k1\", \"n\": \"" + b64(key.getModulus())
                    + "\", \"e\": \"" + b64(key.getPublicExponent()) + "\"}]}");
        });
        server.createContext("/token", this::token);
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The user logged in at the provider: {@code code} will give an ID token with these claims. */
    public void grant(String code, Map<String, Object> claims) {
        claimsByCode.put(code, claims);
    }

    /** A JWT signed with the provider's key, as its ID tokens are. */
    public String sign(Map<String, Object> claims) throws Exception {
        return TestJwts.sign("RS256", keys.getPrivate(), Map.of("kid", "k1"), claims);
    }

    private void token(HttpExchange ex) throws IOException {
        Map<String, String> form = new HashMap<>();
        for (String pair : new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8).split("&")) {
            String[] kv = pair.split("=", 2);
            form.put(URLDecoder.decode(kv[0], StandardCharsets.UTF_8),
                    kv.length > 1 ? URLDecoder.decode(kv[1], StandardCharsets.UTF_8) : "");
        }
        Map<String, Object> claims = claimsByCode.remove(form.getOrDefault("code", ""));
        if (claims == null || !CLIENT_SECRET.equals(form.get("client_secret"))
                || !CLIENT_ID.equals(form.get("client_id"))) {
            reply(ex, 400, "{\"error\": \"invalid_grant\"}");
            return;
        }
        Map<String, Object> all = new HashMap<>(Map.of("iss", url(), "aud", CLIENT_ID,
                "iat", Instant.now().getEpochSecond(), "exp", Instant.now().plusSeconds(300).getEpochSecond()));
        all.putAll(claims);
        try {
            reply(ex, 200, "{\"access_token\": \"x\", \"token_type\": \"Bearer\", \"id_token\": \""
                    + TestJwts.sign("RS256", keys.getPrivate(), Map.of("kid", "k1"), all) + "\"}");
        } catch (Exception e) {
            reply(ex, 500, "{}");
        }
    }

    private static void reply(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static String b64(BigInteger n) {
        byte[] bytes = n.toByteArray();
        if (bytes[0] == 0 && bytes.length > 1) {
            bytes = Arrays.copyOfRange(bytes, 1, bytes.length);
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
