package io.caravan.server.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import javax.crypto.Cipher;
import javax.crypto.KeyAgreement;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import io.caravan.state.TableSpec;

/**
 * The root keyring's rows and its cryptography. A root key is an RSA-2048 signing key (JWS {@code RS256}, what Nomad
 * signs with by default and what cloud IAM accepts), an Ed25519 signing key (JWS {@code EdDSA}), and an AES-256 data
 * key that encrypts variables ({@link Variables}). Keys made before RSA was added have no RSA half and sign EdDSA.
 *
 * <p>How key material travels (the design the brief asked us to choose): every server keeps its own key-encryption
 * key, an X25519 key pair, in {@code <data_dir>/server/keystore}, and publishes only the public half through Raft
 * ({@link Keystore}). A root key's material is in the log and the snapshots only as copies sealed to those public
 * keys ({@link WrappedKey}: ephemeral X25519 agreement, SHA-256 derivation, AES-256-GCM bound to the key ID), one per
 * server. A server that can open a key seals a copy for every published keystore that lacks one, so a server that
 * joins later gets the keys from whichever server holds them, through the log, with no clear key material on the wire
 * or on disk outside the keystore; no shared secret between servers is needed. Nomad instead replicates the key
 * material between servers over RPC; ours works the same on one server or three, and keeps failover simple: every
 * server holds every key before it can lead.
 */
final class Keyring {
    static final String ACTIVE = "active";
    static final String INACTIVE = "inactive";
    /** Nomad's state of the key a full rotation replaced while variables are re-encrypted; it still decrypts. */
    static final String REKEYING = "rekeying";
    /** Nomad's name for the data key's algorithm (signing: RS256, or EdDSA for keys made before RSA). */
    static final String ALGORITHM = "aes256-gcm";

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] INFO = "caravan keyring v1".getBytes(StandardCharsets.UTF_8);
    private static final int NONCE = 12;
    private static final int RSA_BITS = 2048;
    private static final int DATA_KEY = 32;

    /** A server's key-encryption public key, by its fingerprint. */
    record Keystore(String id, String publicKey) {}

    /** A root key's material sealed to one keystore. */
    record WrappedKey(String ephemeralKey, String nonce, String ciphertext) {}

    /**
     * A root key as the state holds it: metadata, the public keys (Ed25519 and RSA, X.509 DER in Base64, served in
     * the JWKS; {@code rsaPublicKey} null for keys made before RSA), and the material sealed per keystore ID. Times
     * are Unix nanoseconds.
     */
    record RootKey(String keyId, String algorithm, long createTime, long createIndex, long modifyIndex, String state,
                   String publicKey, Map<String, WrappedKey> wrapped, String rsaPublicKey) {
        RootKey {
            wrapped = wrapped == null ? Map.of() : Map.copyOf(wrapped);
        }

        RootKey(String keyId, String algorithm, long createTime, long createIndex, long modifyIndex, String state,
                String publicKey, Map<String, WrappedKey> wrapped) {
            this(keyId, algorithm, createTime, createIndex, modifyIndex, state, publicKey, wrapped, null);
        }

        RootKeyMeta meta() {
            return new RootKeyMeta(keyId, algorithm, createTime, createIndex, modifyIndex, state);
        }

        RootKey withState(String changed) {
            return new RootKey(keyId, algorithm, createTime, createIndex, modifyIndex, changed, publicKey, wrapped,
                    rsaPublicKey);
        }

        RootKey withIndexes(long create, long modify) {
            return new RootKey(keyId, algorithm, createTime, create, modify, state, publicKey, wrapped, rsaPublicKey);
        }

        RootKey withWrapped(String keystoreId, WrappedKey copy) {
            Map<String, WrappedKey> all = new LinkedHashMap<>(wrapped);
            all.put(keystoreId, copy);
            return new RootKey(keyId, algorithm, createTime, createIndex, modifyIndex, state, publicKey, all,
                    rsaPublicKey);
        }

        boolean active() {
            return ACTIVE.equals(state);
        }

        boolean rekeying() {
            return REKEYING.equals(state);
        }
    }

    /** Nomad's {@code RootKeyMeta}, what the API shows: never key material. */
    record RootKeyMeta(String keyId, String algorithm, long createTime, long createIndex, long modifyIndex,
                       String state) {}

    /** A root key opened: what signs and encrypts ({@code rsa} null for a key made before RSA). */
    record Material(String keyId, PrivateKey signingKey, PublicKey verifyingKey, byte[] dataKey, KeyPair rsa) {
        Material(String keyId, PrivateKey signingKey, PublicKey verifyingKey, byte[] dataKey) {
            this(keyId, signingKey, verifyingKey, dataKey, null);
        }
    }

    static final TableSpec<RootKey> ROOT_KEYS = TableSpec.of("root_key", RootKey.class, RootKey::keyId);
    static final TableSpec<Keystore> KEYSTORES = TableSpec.of("keystore", Keystore.class, Keystore::id);

    private Keyring() {
    }

    /** A new key: ID, Ed25519 and RSA-2048 pairs and a random AES-256 data key. */
    static Material generate() {
        try {
            KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
            KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
            rsa.initialize(RSA_BITS, RANDOM);
            byte[] data = new byte[32];
            RANDOM.nextBytes(data);
            return new Material(UUID.randomUUID().toString(), pair.getPrivate(), pair.getPublic(), data,
                    rsa.generateKeyPair());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519 or RSA unavailable", e);
        }
    }

    static KeyPair newKeystorePair() {
        try {
            return KeyPairGenerator.getInstance("X25519").generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("X25519 unavailable", e);
        }
    }

    /** A keystore's ID: the first 16 bytes of its public key's SHA-256, in hex. */
    static String fingerprint(PublicKey key) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(key.getEncoded());
            return HexFormat.of().formatHex(hash, 0, 16);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static Keystore keystore(PublicKey key) {
        return new Keystore(fingerprint(key), b64(key.getEncoded()));
    }

    /** A new root key row (state active), its material sealed to each of {@code keystores}. */
    static RootKey row(Material m, long createTimeNanos, Iterable<Keystore> keystores) {
        Map<String, WrappedKey> wrapped = new LinkedHashMap<>();
        for (Keystore k : keystores) {
            wrapped.put(k.id(), wrap(m, k));
        }
        return new RootKey(m.keyId(), ALGORITHM, createTimeNanos, 0, 0, ACTIVE, b64(m.verifyingKey().getEncoded()),
                wrapped, m.rsa() == null ? null : b64(m.rsa().getPublic().getEncoded()));
    }

    /** Seals {@code m} to a keystore's public key. */
    static WrappedKey wrap(Material m, Keystore to) {
        try {
            PublicKey recipient = KeyFactory.getInstance("X25519")
                    .generatePublic(new X509EncodedKeySpec(unb64(to.publicKey())));
            KeyPair ephemeral = newKeystorePair();
            byte[] kek = derive(ephemeral.getPrivate(), recipient, ephemeral.getPublic(), recipient);
            byte[] nonce = new byte[NONCE];
            RANDOM.nextBytes(nonce);
            // Ed25519 key, then (when there is one) the RSA key, each with its length; the data key last.
            byte[] signing = m.signingKey().getEncoded();
            byte[] rsa = m.rsa() == null ? new byte[0] : m.rsa().getPrivate().getEncoded();
            ByteBuffer buffer = ByteBuffer.allocate(4 + signing.length + (rsa.length == 0 ? 0 : 4 + rsa.length)
                    + m.dataKey().length).putInt(signing.length).put(signing);
            if (rsa.length > 0) {
                buffer.putInt(rsa.length).put(rsa);
            }
            byte[] plain = buffer.put(m.dataKey()).array();
            Arrays.fill(rsa, (byte) 0);
            byte[] sealed = aes(Cipher.ENCRYPT_MODE, kek, nonce, m.keyId(), plain);
            Arrays.fill(plain, (byte) 0);
            return new WrappedKey(b64(ephemeral.getPublic().getEncoded()), b64(nonce), b64(sealed));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot seal key for keystore " + to.id() + ": " + e.getMessage(), e);
        }
    }

    /** Opens this server's copy of a key. */
    static Material unwrap(RootKey key, WrappedKey copy, KeyPair keystore) throws GeneralSecurityException {
        PublicKey ephemeral = KeyFactory.getInstance("X25519")
                .generatePublic(new X509EncodedKeySpec(unb64(copy.ephemeralKey())));
        byte[] kek = derive(keystore.getPrivate(), ephemeral, ephemeral, keystore.getPublic());
        byte[] plain = aes(Cipher.DECRYPT_MODE, kek, unb64(copy.nonce()), key.keyId(), unb64(copy.ciphertext()));
        ByteBuffer in = ByteBuffer.wrap(plain);
        byte[] signing = new byte[in.getInt()];
        in.get(signing);
        KeyPair rsa = null;
        if (in.remaining() > DATA_KEY) {   // a key sealed before RSA was added holds only the data key here
            byte[] rsaPrivate = new byte[in.getInt()];
            in.get(rsaPrivate);
            KeyFactory rf = KeyFactory.getInstance("RSA");
            rsa = new KeyPair(rf.generatePublic(new X509EncodedKeySpec(unb64(key.rsaPublicKey()))),
                    rf.generatePrivate(new PKCS8EncodedKeySpec(rsaPrivate)));
            Arrays.fill(rsaPrivate, (byte) 0);
        }
        byte[] data = new byte[in.remaining()];
        in.get(data);
        Arrays.fill(plain, (byte) 0);
        KeyFactory ed = KeyFactory.getInstance("Ed25519");
        PrivateKey priv = ed.generatePrivate(new PKCS8EncodedKeySpec(signing));
        PublicKey pub = ed.generatePublic(new X509EncodedKeySpec(unb64(key.publicKey())));
        return new Material(key.keyId(), priv, pub, data, rsa);
    }

    static PublicKey publicKey(RootKey key) throws GeneralSecurityException {
        return KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(unb64(key.publicKey())));
    }

    /** The key's RSA public key; empty for a key made before RSA. */
    static Optional<RSAPublicKey> rsaPublicKey(RootKey key)
            throws GeneralSecurityException {
        if (key.rsaPublicKey() == null) {
            return Optional.empty();
        }
        return Optional.of((RSAPublicKey) KeyFactory.getInstance("RSA")
                .generatePublic(new X509EncodedKeySpec(unb64(key.rsaPublicKey()))));
    }

    private static byte[] derive(PrivateKey mine, PublicKey theirs, PublicKey ephemeral, PublicKey recipient)
            throws GeneralSecurityException {
        KeyAgreement agreement = KeyAgreement.getInstance("X25519");
        agreement.init(mine);
        agreement.doPhase(theirs, true);
        byte[] shared = agreement.generateSecret();
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update(INFO);
        sha.update(shared);
        sha.update(ephemeral.getEncoded());
        sha.update(recipient.getEncoded());
        Arrays.fill(shared, (byte) 0);
        return sha.digest();
    }

    static byte[] aes(int mode, byte[] key, byte[] nonce, String aad, byte[] in)
            throws GeneralSecurityException {
        Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
        c.init(mode, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
        c.updateAAD(aad.getBytes(StandardCharsets.UTF_8));
        return c.doFinal(in);
    }

    static byte[] random(int bytes) {
        byte[] out = new byte[bytes];
        RANDOM.nextBytes(out);
        return out;
    }

    static String b64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    static byte[] unb64(String text) {
        return Base64.getDecoder().decode(text);
    }
}
