package io.caravan.server.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.server.internal.Keyring.Material;
import io.caravan.server.internal.Keyring.RootKey;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Variables encrypted at rest: the server that receives a write seals the items with the active root key's data key
 * (AES-256-GCM, the namespace and path as associated data, so a ciphertext cannot be moved to another variable)
 * before the write enters the Raft log; every read opens them with the key the row names. Any server can open any
 * key: each holds its own sealed copy ({@link Keyring}). This is the one decrypting read of the server: the HTTP
 * routes and the client RPC (templates) both read through {@link #read}.
 *
 * <p>The nonce is derived from the data key, the variable's path and the items (a synthetic IV, as in AES-GCM-SIV):
 * the same items under the same key seal to the same data, which lets the applier keep a rewrite of unchanged items
 * a no-op, and a nonce repeats only for the very same message, which GCM tolerates.
 */
@Component(service = Variables.class)
public final class Variables {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] NONCE_INFO = "caravan variable nonce v1".getBytes(StandardCharsets.UTF_8);
    private static final int NONCE = 12;
    /**
     * How long a read or write waits for a root key this server can open: after a cluster's first election the
     * leader makes the first key within seconds (Raft, keystore publication, RSA key generation); a server that just
     * joined gets its sealed copy a tick later.
     */
    static final Duration KEY_WAIT = Duration.ofSeconds(30);
    private static final long KEY_POLL_MS = 50;

    private final StateStore store;
    private final KeyringService keyring;
    private final Clock clock;

    @Activate
    public Variables(@Reference ServerState state, @Reference KeyringService keyring) {
        this(state.store(), keyring, Clock.systemUTC());
    }

    Variables(StateStore store, KeyringService keyring, Clock clock) {
        this.store = store;
        this.keyring = keyring;
        this.clock = clock;
    }

    /**
     * A variable as anyone but its lock's holder reads it now, items in clear; empty when there is none. The caller
     * checks the ACL first.
     */
    public Optional<Variable> read(String namespace, String path) {
        return store.snapshot().get(NomadTables.VARIABLES, NomadTables.key(namespace, path))
                .map(e -> open(e.shown(nowNanos())));
    }

    long nowNanos() {
        return Duration.between(Instant.EPOCH, clock.instant()).toNanos();
    }

    /**
     * The write as the log carries it: items sealed with the active root key (nothing to seal: unchanged). Right after
     * a cluster's first election the key may be a moment away: waits for it, at most {@link #KEY_WAIT}.
     */
    Variable seal(Variable plain) {
        if (plain.items().isEmpty()) {
            return plain;
        }
        long deadline = System.nanoTime() + KEY_WAIT.toNanos();
        Optional<RootKey> key = keyring.activeKey();
        while (key.isEmpty() && System.nanoTime() < deadline) {
            pause();
            key = keyring.activeKey();
        }
        RootKey active = key.orElseThrow(() -> new CaravanException(ErrorCode.INTERNAL,
                "cannot encrypt the variable: the keyring has no active root key yet"));
        return plain.withData(seal(material(active), plain.namespace(), plain.path(), plain.items()));
    }

    /** The items in clear; a row written before encryption (no data) is returned as it is. */
    Variable open(Variable stored) {
        if (stored.data() == null) {
            return stored;
        }
        Variable.Sealed data = stored.data();
        RootKey key = store.snapshot().get(Keyring.ROOT_KEYS, data.keyId()).orElseThrow(() -> new CaravanException(
                ErrorCode.INTERNAL, "cannot decrypt variable " + stored.path() + ": root key " + data.keyId()
                + " not found"));
        return stored.withItems(open(material(key), stored.namespace(), stored.path(), data));
    }

    /** A stored variable's items sealed again with {@code to} (a full rotation's re-encryption). */
    Variable.Sealed reseal(Variable stored, RootKey to) {
        return seal(material(to), stored.namespace(), stored.path(), open(stored).items());
    }

    /** The key opened; a server that just joined may wait for its sealed copy, at most {@link #KEY_WAIT}. */
    private Material material(RootKey key) {
        long deadline = System.nanoTime() + KEY_WAIT.toNanos();
        Optional<Material> m = keyring.open(key);
        while (m.isEmpty() && System.nanoTime() < deadline) {
            pause();
            RootKey current = store.snapshot().get(Keyring.ROOT_KEYS, key.keyId()).orElse(key);
            m = keyring.open(current);
        }
        return m.orElseThrow(() -> new CaravanException(ErrorCode.INTERNAL,
                "this server holds no copy of root key " + key.keyId() + " yet"));
    }

    private static void pause() {
        try {
            Thread.sleep(KEY_POLL_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CaravanException(ErrorCode.INTERNAL, "interrupted while waiting for the keyring");
        }
    }

    static Variable.Sealed seal(Material m, String namespace, String path, Map<String, String> items) {
        try {
            byte[] plain = JSON.writeValueAsBytes(new TreeMap<>(items));
            String aad = aad(namespace, path);
            byte[] nonce = nonce(m.dataKey(), aad, plain);
            byte[] sealed = Keyring.aes(Cipher.ENCRYPT_MODE, m.dataKey(), nonce, aad, plain);
            Arrays.fill(plain, (byte) 0);
            return new Variable.Sealed(m.keyId(), Keyring.b64(nonce), Keyring.b64(sealed));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot encrypt variable " + path + ": " + e.getMessage(), e);
        }
    }

    static Map<String, String> open(Material m, String namespace, String path, Variable.Sealed data) {
        try {
            byte[] plain = Keyring.aes(Cipher.DECRYPT_MODE, m.dataKey(), Keyring.unb64(data.nonce()),
                    aad(namespace, path), Keyring.unb64(data.ciphertext()));
            Map<String, String> items = JSON.readValue(plain, new TypeReference<TreeMap<String, String>>() { });
            Arrays.fill(plain, (byte) 0);
            return items;
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
            throw new CaravanException(ErrorCode.INTERNAL, "cannot decrypt variable " + path + " with root key "
                    + data.keyId() + ": " + e.getMessage());
        }
    }

    private static String aad(String namespace, String path) {
        return namespace + "\0" + path;
    }

    /** HMAC-SHA256 under a key derived from the data key (not the data key itself), over path and items. */
    private static byte[] nonce(byte[] dataKey, String aad, byte[] plain) throws GeneralSecurityException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update(NONCE_INFO);
        byte[] macKey = sha.digest(dataKey);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(macKey, "HmacSHA256"));
        Arrays.fill(macKey, (byte) 0);
        mac.update(aad.getBytes(StandardCharsets.UTF_8));
        mac.update((byte) 0);
        return Arrays.copyOf(mac.doFinal(plain), NONCE);
    }
}
