package io.caravan.membership.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The gossip encryption key ({@code server.encrypt}): AES-GCM, a random 12-byte nonce in front of the ciphertext, the
 * request path as additional authenticated data.
 */
final class GossipKey {
    static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    private GossipKey(byte[] raw) {
        this.key = new SecretKeySpec(raw, "AES");
    }

    /**
     * @return null when {@code base64} is null or blank (no encryption)
     * @throws IllegalArgumentException when it is not base64 of 16, 24 or 32 bytes
     */
    static GossipKey parse(String base64) {
        if (base64 == null || base64.isBlank()) {
            return null;
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(base64.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("encrypt: the gossip key is not valid base64");
        }
        if (raw.length != 16 && raw.length != 24 && raw.length != 32) {
            throw new IllegalArgumentException("encrypt: the gossip key must be 16, 24 or 32 bytes, got " + raw.length);
        }
        return new GossipKey(raw);
    }

    byte[] seal(byte[] plain, String aad) {
        try {
            byte[] nonce = new byte[NONCE_BYTES];
            RANDOM.nextBytes(nonce);
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(aad.getBytes(StandardCharsets.UTF_8));
            byte[] sealed = cipher.doFinal(plain);
            byte[] out = Arrays.copyOf(nonce, NONCE_BYTES + sealed.length);
            System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM unavailable", e);
        }
    }

    /** @throws GeneralSecurityException when the message was not sealed with this key and {@code aad} */
    byte[] open(byte[] sealed, String aad) throws GeneralSecurityException {
        if (sealed.length < NONCE_BYTES + TAG_BITS / 8) {
            throw new GeneralSecurityException("message too short");
        }
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 0, NONCE_BYTES));
        cipher.updateAAD(aad.getBytes(StandardCharsets.UTF_8));
        return cipher.doFinal(sealed, NONCE_BYTES, sealed.length - NONCE_BYTES);
    }
}
