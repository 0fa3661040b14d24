package io.caravan.rpc.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How a server shows another that it is one: an HMAC of a fixed label under the cluster's gossip key, sent when it
 * connects. Only agents holding the key (servers) can make it. Without a key every connection counts as a server's.
 * It keeps clients off server-only endpoints on plain-text connections; over TLS the certificate's role does
 * ({@link RpcListener}).
 */
final class ServerProof {
    static final ServerProof NONE = new ServerProof(null);
    private static final byte[] LABEL = "caravan rpc server v1".getBytes(StandardCharsets.UTF_8);

    private final String proof;

    private ServerProof(String proof) {
        this.proof = proof;
    }

    /** @param gossipKey the base64 {@code encrypt} key; empty or null for none */
    static ServerProof of(String gossipKey) {
        if (gossipKey == null || gossipKey.isBlank()) {
            return NONE;
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(Base64.getDecoder().decode(gossipKey.trim()), "HmacSHA256"));
            return new ServerProof(Base64.getEncoder().encodeToString(mac.doFinal(LABEL)));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException("the gossip key is not usable: " + e.getMessage(), e);
        }
    }

    /** What this agent sends when it dials, or null when it has nothing to prove with. */
    String value() {
        return proof;
    }

    boolean accepts(String presented) {
        if (proof == null) {
            return true;
        }
        return presented != null && MessageDigest.isEqual(proof.getBytes(StandardCharsets.UTF_8),
                presented.getBytes(StandardCharsets.UTF_8));
    }
}
