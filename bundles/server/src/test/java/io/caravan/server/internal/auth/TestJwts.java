package io.caravan.server.internal.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

/** Keys generated per test and JWTs signed with them, as an identity provider would issue them. */
public final class TestJwts {
    private static final ObjectMapper JSON = new ObjectMapper();

    private TestJwts() {
    }

    public static KeyPair rsa() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        return g.generateKeyPair();
    }

    public static KeyPair ec() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    public static KeyPair ed25519() throws GeneralSecurityException {
        return KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    }

    public static String pem(PublicKey key) {
        return "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(key.getEncoded()) + "\n-----END PUBLIC KEY-----\n";
    }

    /** A JWT with these header fields (besides {@code alg}) and claims, signed with {@code key}. */
    public static String sign(String alg, PrivateKey key, Map<String, Object> header, Map<String, Object> claims)
            throws Exception {
        Map<String, Object> h = new LinkedHashMap<>(header);
        h.put("alg", alg);
        h.put("typ", "JWT");
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String signed = b64.encodeToString(JSON.writeValueAsBytes(h)) + "."
                + b64.encodeToString(JSON.writeValueAsBytes(claims));
        Signature s = Signature.getInstance(JwtVerifier.JCA.get(alg));
        s.initSign(key);
        s.update(signed.getBytes(StandardCharsets.US_ASCII));
        return signed + "." + b64.encodeToString(s.sign());
    }

    public static String sign(String alg, PrivateKey key, Map<String, Object> claims) throws Exception {
        return sign(alg, key, Map.of(), claims);
    }
}
