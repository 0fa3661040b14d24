package io.caravan.server.internal.auth;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.EdECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.api.acl.AclAuthMethod;

/**
 * Verifies a JWT against a {@code JWT} auth method with the JDK's own signature APIs (no JOSE library is bundled):
 * RS256/384/512, ES256/384/512 and EdDSA (Ed25519), keys from {@code JWTValidationPubKeys} (PEM public keys or
 * certificates), a JWKS ({@code JWKSURL}: http(s) or a {@code file:} URL) or the JWKS of an OIDC provider
 * ({@code OIDCDiscoveryURL}). Then the claims: {@code exp}, {@code nbf} and {@code iat} with the method's leeways,
 * {@code BoundIssuer}, {@code BoundAudiences}. Every failure
 * is a {@link Rejected} whose message says what failed and nothing of the keys.
 */
public final class JwtVerifier {
    /** Nomad's default when a method names no algorithms. */
    static final List<String> DEFAULT_ALGS = List.of("RS256");
    static final Map<String, String> JCA = Map.of(
            "RS256", "SHA256withRSA", "RS384", "SHA384withRSA", "RS512", "SHA512withRSA",
            "ES256", "SHA256withECDSAinP1363Format", "ES384", "SHA384withECDSAinP1363Format",
            "ES512", "SHA512withECDSAinP1363Format", "EdDSA", "Ed25519");
    private static final Map<String, String> EC_CURVES = Map.of("P-256", "secp256r1", "P-384", "secp384r1",
            "P-521", "secp521r1");
    private static final Pattern PEM = Pattern.compile(
            "-----BEGIN (PUBLIC KEY|CERTIFICATE)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");
    /** DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 key bytes follow. */
    private static final byte[] ED25519_PREFIX = HexFormat.of().parseHex("302a300506032b6570032100");
    private static final Duration FETCH_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration DEFAULT_LEEWAY = Duration.ofSeconds(150);
    private static final Duration DEFAULT_SKEW = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A login token this method does not accept; the message is safe to show the caller. */
    public static final class Rejected extends Exception {
        private static final long serialVersionUID = 1L;

        public Rejected(String message) {
            super(message);
        }
    }

    /** The keys of a JWKS as fetched at {@code at}. */
    private record Fetched(Instant at, List<Key> keys) {}

    static final Duration JWKS_TTL = Duration.ofMinutes(1);
    private static final int MAX_CACHED = 64;
    private static final Map<String, Fetched> JWKS_CACHE = new ConcurrentHashMap<>();

    /** A verification key, with the {@code kid} a JWKS gave it (null for PEM keys). */
    record Key(String kid, PublicKey key) {}

    private JwtVerifier() {
    }

    /** The token's claims, once its signature and claims pass the method's checks at {@code now}. */
    public static JsonNode verify(AclAuthMethod.Config config, String jwt, Instant now) throws Rejected {
        String[] parts = jwt.strip().split("\\.", -1);
        if (parts.length != 3) {
            throw new Rejected("malformed JWT: expected three dot-separated parts");
        }
        JsonNode header = decodeJson(parts[0], "header");
        JsonNode claims = decodeJson(parts[1], "payload");
        byte[] signature = decode(parts[2], "signature");
        String alg = header.path("alg").asText("");
        List<String> allowed = config.signingAlgs().isEmpty() ? DEFAULT_ALGS : config.signingAlgs();
        if (!allowed.contains(alg) || !JCA.containsKey(alg)) {
            throw new Rejected("JWT signing algorithm \"" + alg + "\" is not allowed by the auth method");
        }
        List<Key> keys = keys(config, now);
        String kid = header.path("kid").asText(null);
        byte[] signed = (parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII);
        boolean verified = false;
        for (Key key : keys) {
            if (kid != null && key.kid() != null && !key.kid().equals(kid)) {
                continue;
            }
            if (fits(alg, key.key()) && verifies(alg, key.key(), signed, signature)) {
                verified = true;
                break;
            }
        }
        if (!verified) {
            throw new Rejected("failed to verify JWT signature");
        }
        checkClaims(config, claims, now);
        return claims;
    }

    /**
     * The time claims as Nomad's JWT library checks them: at least one of {@code iat}, {@code nbf}, {@code exp}; a
     * missing {@code exp} is the later of {@code iat} and {@code nbf} plus {@code ExpirationLeeway}, a missing
     * {@code nbf} is {@code iat}, else {@code exp} minus {@code NotBeforeLeeway}; all three are checked with
     * {@code ClockSkewLeeway} of slack. A zero leeway means the default (150 s, 150 s, 60 s), a negative one none.
     */
    private static void checkClaims(AclAuthMethod.Config config, JsonNode claims, Instant now) throws Rejected {
        if (!claims.isObject()) {
            throw new Rejected("malformed JWT: the payload is not a JSON object");
        }
        Instant iat = time(claims, "iat");
        Instant nbf = time(claims, "nbf");
        Instant exp = time(claims, "exp");
        if (iat == null && nbf == null && exp == null) {
            throw new Rejected("JWT has no issued at (iat), not before (nbf) or expiration time (exp) claim");
        }
        if (exp == null) {
            Instant start = iat == null ? nbf : nbf == null || iat.isAfter(nbf) ? iat : nbf;
            exp = start.plus(leeway(config.expirationLeeway(), DEFAULT_LEEWAY));
        }
        if (nbf == null) {
            nbf = iat != null ? iat : exp.minus(leeway(config.notBeforeLeeway(), DEFAULT_LEEWAY));
        }
        Duration skew = leeway(config.clockSkewLeeway(), DEFAULT_SKEW);
        if (now.plus(skew).isBefore(nbf)) {
            throw new Rejected("JWT is not valid yet (nbf)");
        }
        if (now.minus(skew).isAfter(exp)) {
            throw new Rejected("JWT is expired");
        }
        if (iat != null && now.plus(skew).isBefore(iat)) {
            throw new Rejected("JWT is issued in the future (iat)");
        }
        if (!config.boundIssuer().isEmpty() && !config.boundIssuer().contains(claims.path("iss").asText(""))) {
            throw new Rejected("JWT issuer (iss) is not bound by the auth method");
        }
        if (!config.boundAudiences().isEmpty()) {
            JsonNode aud = claims.path("aud");
            List<String> audiences = new ArrayList<>();
            if (aud.isArray()) {
                aud.forEach(a -> audiences.add(a.asText()));
            } else if (aud.isTextual()) {
                audiences.add(aud.asText());
            }
            if (audiences.stream().noneMatch(config.boundAudiences()::contains)) {
                throw new Rejected("JWT audience (aud) is not bound by the auth method");
            }
        }
    }

    private static Duration leeway(Duration configured, Duration byDefault) {
        return configured.isZero() ? byDefault : configured.isNegative() ? Duration.ZERO : configured;
    }

    private static Instant time(JsonNode claims, String name) throws Rejected {
        JsonNode value = claims.get(name);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isNumber()) {
            throw new Rejected("malformed JWT: claim " + name + " is not a number");
        }
        return Instant.ofEpochSecond(value.asLong());
    }

    /** Whether a key can check this algorithm at all (an RSA key never checks an ES256 token, and so on). */
    private static boolean fits(String alg, PublicKey key) {
        return switch (alg.substring(0, 2)) {
            case "RS" -> key instanceof RSAPublicKey;
            case "ES" -> key instanceof ECPublicKey ec && ec.getParams().getOrder().bitLength()
                    == switch (alg) {
                        case "ES256" -> 256;
                        case "ES384" -> 384;
                        default -> 521;
                    };
            default -> key instanceof EdECPublicKey;
        };
    }

    private static boolean verifies(String alg, PublicKey key, byte[] signed, byte[] signature) {
        try {
            Signature verifier = Signature.getInstance(JCA.get(alg));
            verifier.initVerify(key);
            verifier.update(signed);
            return verifier.verify(signature);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }

    // ---- keys

    /** The method's verification keys: its PEM keys, else its JWKS. */
    static List<Key> keys(AclAuthMethod.Config config, Instant now) throws Rejected {
        if (!config.jwtValidationPubKeys().isEmpty()) {
            List<Key> keys = new ArrayList<>();
            for (String pem : config.jwtValidationPubKeys()) {
                try {
                    keys.add(new Key(null, parsePem(pem)));
                } catch (IllegalArgumentException e) {
                    throw new Rejected("auth method has an unusable public key: " + e.getMessage());
                }
            }
            return keys;
        }
        if (!config.jwksUrl().isEmpty()) {
            return jwks(config.jwksUrl(), config.jwksCaCert(), now);
        }
        if (!config.oidcDiscoveryUrl().isEmpty()) {
            return jwks(OidcFlow.discover(config).jwksUri(), String.join("\n", config.discoveryCaPem()), now);
        }
        throw new Rejected("auth method has no JWTValidationPubKeys, JWKSURL or OIDCDiscoveryURL");
    }

    /**
     * A PEM public key ({@code PUBLIC KEY}) or certificate ({@code CERTIFICATE}): RSA, EC or Ed25519.
     *
     * @throws IllegalArgumentException saying why it is not one
     */
    public static PublicKey parsePem(String pem) {
        Matcher m = PEM.matcher(pem == null ? "" : pem);
        if (!m.find()) {
            throw new IllegalArgumentException("not a PEM \"PUBLIC KEY\" or \"CERTIFICATE\" block");
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(m.group(2).replaceAll("\\s", ""));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad base64 in the PEM block");
        }
        if (m.group(1).equals("CERTIFICATE")) {
            try {
                return CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der))
                        .getPublicKey();
            } catch (GeneralSecurityException e) {
                throw new IllegalArgumentException("unreadable certificate: " + e.getMessage());
            }
        }
        for (String type : List.of("RSA", "EC", "Ed25519")) {
            try {
                return KeyFactory.getInstance(type).generatePublic(new X509EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // try the next key type
            }
        }
        throw new IllegalArgumentException("not an RSA, EC or Ed25519 public key");
    }

    /**
     * The keys of the JWKS at {@code url}, fetched at most once per {@link #JWKS_TTL}: logins are public, and each
     * must not make this server call the identity provider.
     */
    private static List<Key> jwks(String url, String caPem, Instant now) throws Rejected {
        String key = url + "\n" + caPem;
        Fetched cached = JWKS_CACHE.get(key);
        if (cached != null && now.isBefore(cached.at().plus(JWKS_TTL)) && !now.isBefore(cached.at())) {
            return cached.keys();
        }
        List<Key> keys = jwks(fetch(url, caPem));
        if (JWKS_CACHE.size() >= MAX_CACHED) {
            JWKS_CACHE.clear();
        }
        JWKS_CACHE.put(key, new Fetched(now, keys));
        return keys;
    }

    /** The keys of a JWKS document that we can use: RSA, EC (P-256/384/521) and OKP Ed25519. */
    static List<Key> jwks(String document) throws Rejected {
        JsonNode set;
        try {
            set = JSON.readTree(document);
        } catch (IOException e) {
            throw new Rejected("the auth method's JWKS is not JSON");
        }
        List<Key> keys = new ArrayList<>();
        for (JsonNode jwk : set.path("keys")) {
            if (jwk.hasNonNull("use") && !"sig".equals(jwk.path("use").asText())) {
                continue;
            }
            try {
                PublicKey key = jwk(jwk);
                if (key != null) {
                    keys.add(new Key(jwk.path("kid").asText(null), key));
                }
            } catch (GeneralSecurityException | IllegalArgumentException e) {
                // a key we cannot read verifies nothing; the others may still do
            }
        }
        if (keys.isEmpty()) {
            throw new Rejected("the auth method's JWKS has no usable keys");
        }
        return keys;
    }

    private static PublicKey jwk(JsonNode jwk) throws GeneralSecurityException {
        switch (jwk.path("kty").asText()) {
            case "RSA" -> {
                return KeyFactory.getInstance("RSA").generatePublic(new RSAPublicKeySpec(
                        unsigned(jwk.path("n").asText()), unsigned(jwk.path("e").asText())));
            }
            case "EC" -> {
                String curve = EC_CURVES.get(jwk.path("crv").asText());
                if (curve == null) {
                    return null;
                }
                AlgorithmParameters params = AlgorithmParameters.getInstance("EC");
                params.init(new ECGenParameterSpec(curve));
                ECPoint point = new ECPoint(unsigned(jwk.path("x").asText()), unsigned(jwk.path("y").asText()));
                return KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(point,
                        params.getParameterSpec(ECParameterSpec.class)));
            }
            case "OKP" -> {
                if (!"Ed25519".equals(jwk.path("crv").asText())) {
                    return null;
                }
                byte[] x = Base64.getUrlDecoder().decode(jwk.path("x").asText());
                byte[] der = new byte[ED25519_PREFIX.length + x.length];
                System.arraycopy(ED25519_PREFIX, 0, der, 0, ED25519_PREFIX.length);
                System.arraycopy(x, 0, der, ED25519_PREFIX.length, x.length);
                return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(der));
            }
            default -> {
                return null;
            }
        }
    }

    private static BigInteger unsigned(String base64url) {
        return new BigInteger(1, Base64.getUrlDecoder().decode(base64url));
    }

    /** The JWKS document at {@code url}: a file, or fetched over HTTP(S) trusting {@code caPem} when given. */
    static String fetch(String url, String caPem) throws Rejected {
        try {
            URI uri = URI.create(url);
            if ("file".equals(uri.getScheme())) {
                return Files.readString(Path.of(uri), StandardCharsets.UTF_8);
            }
            HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(FETCH_TIMEOUT);
            if (caPem != null && !caPem.isBlank()) {
                client.sslContext(trusting(caPem));
            }
            HttpResponse<String> response = client.build().send(HttpRequest.newBuilder(uri).timeout(FETCH_TIMEOUT)
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new Rejected("fetching the auth method's JWKS: HTTP " + response.statusCode());
            }
            return response.body();
        } catch (IOException | IllegalArgumentException | GeneralSecurityException e) {
            throw new Rejected("fetching the auth method's JWKS: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Rejected("fetching the auth method's JWKS: interrupted");
        }
    }

    /** A TLS context that trusts the certificates of these PEM blocks only. */
    static SSLContext trusting(String caPem) throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        int i = 0;
        for (var cert : CertificateFactory.getInstance("X.509").generateCertificates(
                new ByteArrayInputStream(caPem.getBytes(StandardCharsets.US_ASCII)))) {
            store.setCertificateEntry("ca" + i++, (X509Certificate) cert);
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }

    // ---- decoding

    private static byte[] decode(String part, String what) throws Rejected {
        try {
            return Base64.getUrlDecoder().decode(part);
        } catch (IllegalArgumentException e) {
            throw new Rejected("malformed JWT: the " + what + " is not base64url");
        }
    }

    private static JsonNode decodeJson(String part, String what) throws Rejected {
        try {
            return JSON.readTree(decode(part, what));
        } catch (IOException e) {
            throw new Rejected("malformed JWT: the " + what + " is not JSON");
        }
    }

    /** The algorithm names a method's {@code SigningAlgs} may list. */
    public static Set<String> algorithms() {
        return JCA.keySet();
    }
}
