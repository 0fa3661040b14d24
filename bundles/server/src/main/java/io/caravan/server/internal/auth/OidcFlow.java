package io.caravan.server.internal.auth;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.api.acl.AclAuthMethod;

/**
 * The OIDC authorization-code flow for an {@code OIDC} auth method: {@link #authUrl} sends the user to the provider
 * (found through its discovery document) with a fresh {@code state} and {@code nonce}, {@link #complete} trades the
 * code the provider returned for an ID token at its token endpoint and verifies that token as {@link JwtVerifier}
 * verifies a JWT, with the provider's JWKS, its issuer, the client ID as audience and the nonce of that state.
 * Pending logins live on this server for {@link #PENDING_TTL}; the complete-auth call must reach the same server.
 */
public final class OidcFlow {
    static final Duration PENDING_TTL = Duration.ofMinutes(10);
    private static final int MAX_PENDING = 10_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();

    /** A login between auth-url and complete-auth. */
    private record Pending(String method, String clientNonce, String redirectUri, String nonce, String verifier,
                           Instant expires) {}

    private final Map<String, Pending> pending = new ConcurrentHashMap<>();

    /** The provider's endpoints, from {@code <OIDCDiscoveryURL>/.well-known/openid-configuration}. */
    record Provider(String issuer, String authorizationEndpoint, String tokenEndpoint, String jwksUri) {}

    /** The URL to send the user to; remembers the login under a new {@code state}. */
    public String authUrl(AclAuthMethod method, String redirectUri, String clientNonce, Instant now)
            throws JwtVerifier.Rejected {
        AclAuthMethod.Config c = method.config();
        checkRedirect(c, redirectUri);
        Provider provider = discover(c);
        expire(now);
        if (pending.size() >= MAX_PENDING) {
            throw new JwtVerifier.Rejected("too many OIDC logins in progress; try again later");
        }
        String state = random();
        String nonce = random();
        String verifier = c.oidcEnablePkce() ? random() + random() : null;
        pending.put(state, new Pending(method.name(), clientNonce, redirectUri, nonce, verifier,
                now.plus(PENDING_TTL)));
        List<String> scopes = new ArrayList<>(List.of("openid"));
        c.oidcScopes().stream().filter(s -> !s.equals("openid")).forEach(scopes::add);
        Map<String, String> query = new LinkedHashMap<>();
        query.put("client_id", c.oidcClientId());
        query.put("nonce", nonce);
        query.put("redirect_uri", redirectUri);
        query.put("response_type", "code");
        query.put("scope", String.join(" ", scopes));
        query.put("state", state);
        if (verifier != null) {
            query.put("code_challenge", challenge(verifier));
            query.put("code_challenge_method", "S256");
        }
        String separator = provider.authorizationEndpoint().contains("?") ? "&" : "?";
        return provider.authorizationEndpoint() + separator + form(query);
    }

    /** The ID token's verified claims for the code the provider returned with {@code state}. */
    public JsonNode complete(AclAuthMethod method, String state, String code, String clientNonce,
                             String redirectUri, Instant now) throws JwtVerifier.Rejected {
        Pending login = pending.remove(state);
        if (login == null || !now.isBefore(login.expires()) || !login.method().equals(method.name())) {
            throw new JwtVerifier.Rejected("unknown or expired OIDC state");
        }
        if (!login.clientNonce().equals(clientNonce) || !login.redirectUri().equals(redirectUri)) {
            throw new JwtVerifier.Rejected("the client nonce or redirect URI differs from the auth-url request");
        }
        AclAuthMethod.Config c = method.config();
        Provider provider = discover(c);
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "authorization_code");
        form.put("code", code);
        form.put("redirect_uri", redirectUri);
        form.put("client_id", c.oidcClientId());
        form.put("client_secret", c.oidcClientSecret());
        if (login.verifier() != null) {
            form.put("code_verifier", login.verifier());
        }
        JsonNode answer = post(c, provider.tokenEndpoint(), form(form));
        String idToken = answer.path("id_token").asText("");
        if (idToken.isEmpty()) {
            throw new JwtVerifier.Rejected("the OIDC provider returned no id_token");
        }
        // The ID token is checked as a JWT method checks one, with the provider's keys and issuer and the client
        // as the audience unless the method binds others.
        AclAuthMethod.Config asJwt = new AclAuthMethod.Config(List.of(), provider.jwksUri(),
                String.join("\n", c.discoveryCaPem()), null, null, null, null, false, false,
                c.boundAudiences().isEmpty() ? List.of(c.oidcClientId()) : c.boundAudiences(),
                List.of(provider.issuer()), null, null, c.signingAlgs(), c.expirationLeeway(), c.notBeforeLeeway(),
                c.clockSkewLeeway(), null, null, false);
        JsonNode claims = JwtVerifier.verify(asJwt, idToken, now);
        if (!login.nonce().equals(claims.path("nonce").asText(""))) {
            throw new JwtVerifier.Rejected("the ID token's nonce does not match the login");
        }
        return claims;
    }

    private static void checkRedirect(AclAuthMethod.Config c, String redirectUri) throws JwtVerifier.Rejected {
        if (!c.allowedRedirectUris().contains(redirectUri)) {
            throw new JwtVerifier.Rejected("redirect URI " + redirectUri + " is not allowed by the auth method");
        }
    }

    private void expire(Instant now) {
        pending.values().removeIf(p -> !now.isBefore(p.expires()));
    }

    static Provider discover(AclAuthMethod.Config c) throws JwtVerifier.Rejected {
        String base = c.oidcDiscoveryUrl().replaceAll("/+$", "");
        JsonNode doc = get(c, base + "/.well-known/openid-configuration");
        Provider p = new Provider(doc.path("issuer").asText(""), doc.path("authorization_endpoint").asText(""),
                doc.path("token_endpoint").asText(""), doc.path("jwks_uri").asText(""));
        if (p.issuer().isEmpty() || p.authorizationEndpoint().isEmpty() || p.tokenEndpoint().isEmpty()
                || p.jwksUri().isEmpty()) {
            throw new JwtVerifier.Rejected("the OIDC discovery document lacks issuer, authorization_endpoint, "
                    + "token_endpoint or jwks_uri");
        }
        return p;
    }

    private static JsonNode get(AclAuthMethod.Config c, String url) throws JwtVerifier.Rejected {
        return send(c, HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).GET().build());
    }

    private static JsonNode post(AclAuthMethod.Config c, String url, String form) throws JwtVerifier.Rejected {
        return send(c, HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build());
    }

    private static JsonNode send(AclAuthMethod.Config c, HttpRequest request) throws JwtVerifier.Rejected {
        try {
            HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(TIMEOUT);
            if (!c.discoveryCaPem().isEmpty()) {
                client.sslContext(JwtVerifier.trusting(String.join("\n", c.discoveryCaPem())));
            }
            HttpResponse<String> response = client.build().send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new JwtVerifier.Rejected("the OIDC provider answered " + request.uri().getPath() + " with HTTP "
                        + response.statusCode());
            }
            return JSON.readTree(response.body());
        } catch (IOException | IllegalArgumentException | GeneralSecurityException e) {
            throw new JwtVerifier.Rejected("calling the OIDC provider: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JwtVerifier.Rejected("calling the OIDC provider: interrupted");
        }
    }

    private static String form(Map<String, String> fields) {
        return fields.entrySet().stream().map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8)).collect(Collectors.joining("&"));
    }

    private static String random() {
        byte[] bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static String challenge(String verifier) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
