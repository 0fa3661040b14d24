package io.caravan.server.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.api.timer.SharedTimer;
import io.caravan.server.internal.Keyring.Keystore;
import io.caravan.server.internal.Keyring.Material;
import io.caravan.server.internal.Keyring.RootKey;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This server's part of the keyring ({@link Keyring}): its keystore (the X25519 key-encryption key in
 * {@code <data_dir>/server/keystore/kek}, created on first start; in memory without a data directory), its
 * published public key, the root keys it can open, and the copies it seals for servers that lack one. It signs
 * Caravan's JWTs with JWS {@code RS256} as Nomad does by default ({@code EdDSA} with a key made before RSA),
 * {@code kid} = the root key's ID, verifies both, and serves the JWKS.
 */
@Component(service = KeyringService.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class KeyringService {
    private static final Logger LOG = LoggerFactory.getLogger(KeyringService.class);
    static final String KEYSTORE_FILE = "kek";
    private static final long TICK_MS = 1000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Encoder URL = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder UNURL = Base64.getUrlDecoder();
    /** DER prefix of an Ed25519 SubjectPublicKeyInfo: the raw 32-byte key follows (the JWK's {@code x}). */
    private static final int ED25519_PREFIX = 12;
    static final String RS256 = "RS256";
    static final String EDDSA = "EdDSA";

    /** The configuration this component reads from PID {@code io.caravan.server}. */
    @interface Config {
        String data_dir() default "";

        /** Put in every JWT as {@code iss} when set (Nomad's {@code server.oidc_issuer}). */
        String oidc_issuer() default "";
    }

    private final StateStore store;
    private final RaftWrites writes;
    private final KeyPair keystore;
    private final Keystore published;
    private final Clock clock;
    private final Map<String, Material> opened = new ConcurrentHashMap<>();
    /** Writes in flight (registration, copies), so a tick does not send them twice. */
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer;
    private volatile String issuer = "";

    @Activate
    public KeyringService(@Reference ServerState state, @Reference RaftWrites writes, @Reference SharedTimer timer,
                          Config config) {
        // the pass only reads the state and sends writes without waiting for them: fit for the shared timer
        this(state.store(), writes, loadKeystore(config.data_dir()), Clock.systemUTC(), timer.timer("caravan-keyring"));
        this.issuer = config.oidc_issuer() == null ? "" : config.oidc_issuer();
    }

    /** @param tick whether replication passes run, on a thread of their own (tests) */
    KeyringService(StateStore store, RaftWrites writes, KeyPair keystore, Clock clock, boolean tick) {
        this(store, writes, keystore, clock, tick ? new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "caravan-keyring");
            t.setDaemon(true);
            return t;
        }) : null);
    }

    /** @param timer where the replication passes run, or null for none */
    private KeyringService(StateStore store, RaftWrites writes, KeyPair keystore, Clock clock,
                           ScheduledExecutorService timer) {
        this.store = store;
        this.writes = writes;
        this.keystore = keystore;
        this.published = Keyring.keystore(keystore.getPublic());
        this.clock = clock;
        this.timer = timer;
        if (timer != null) {
            timer.scheduleWithFixedDelay(this::tickSafely, 0, TICK_MS, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * The server's configuration changed (a reload): {@code oidc_issuer} applies to the next tokens signed
     * ({@code data_dir} only changes with a restart), and staying active keeps what signs and verifies with the
     * keyring — the node endpoints included — from being restarted with it.
     */
    @Modified
    void modified(Config config) {
        this.issuer = config.oidc_issuer() == null ? "" : config.oidc_issuer();
    }

    @Deactivate
    void deactivate() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    Keystore keystore() {
        return published;
    }

    Clock clock() {
        return clock;
    }

    /** The {@code iss} of the JWTs this server signs; empty: none. */
    String issuer() {
        return issuer;
    }

    /** The key pair in {@code <data_dir>/server/keystore/kek} (PKCS#8 then X.509, Base64 lines), made if absent. */
    static KeyPair loadKeystore(String dataDir) {
        if (dataDir == null || dataDir.isEmpty()) {
            return Keyring.newKeystorePair();
        }
        Path file = Path.of(dataDir, "server", "keystore", KEYSTORE_FILE);
        try {
            if (Files.exists(file)) {
                List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
                KeyFactory x = KeyFactory.getInstance("X25519");
                return new KeyPair(x.generatePublic(new X509EncodedKeySpec(Keyring.unb64(lines.get(1)))),
                        x.generatePrivate(new PKCS8EncodedKeySpec(Keyring.unb64(lines.get(0)))));
            }
            KeyPair pair = Keyring.newKeystorePair();
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(KEYSTORE_FILE + ".tmp");
            Files.writeString(tmp, Keyring.b64(pair.getPrivate().getEncoded()) + "\n"
                    + Keyring.b64(pair.getPublic().getEncoded()) + "\n", StandardCharsets.US_ASCII);
            try {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system: the directory's permissions are all there is
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            return pair;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create the keystore " + file, e);
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new IllegalStateException("invalid keystore " + file + ": " + e.getMessage(), e);
        }
    }

    private void tickSafely() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.atWarn().setCause(e).log("keyring replication pass failed");
        }
    }

    /**
     * One replication pass: publish this keystore if the state lacks it, and seal each key this server holds for
     * every published keystore without a copy.
     */
    void tick() {
        StateSnapshot s = store.snapshot();
        if (s.get(Keyring.KEYSTORES, published.id()).isEmpty()) {
            send("register", new Command.KeystoreRegister(published));
            return;
        }
        List<Keystore> keystores = s.all(Keyring.KEYSTORES).toList();
        s.all(Keyring.ROOT_KEYS).forEach(key -> {
            Optional<Material> material = open(key);
            if (material.isEmpty()) {
                return;
            }
            for (Keystore k : keystores) {
                if (!key.wrapped().containsKey(k.id())) {
                    send("wrap " + key.keyId() + " " + k.id(),
                            new Command.RootKeyWrap(key.keyId(), k.id(), Keyring.wrap(material.get(), k)));
                }
            }
        });
    }

    private void send(String what, Command command) {
        if (writes == null || !pending.add(what)) {
            return;
        }
        writes.submit(command).whenComplete((r, e) -> {
            pending.remove(what);
            if (e != null) {
                LOG.atDebug().addKeyValue("write", what).setCause(e).log("keyring write failed; retried next pass");
            }
        });
    }

    /** A key opened with this server's copy; empty while this server has none. */
    Optional<Material> open(RootKey key) {
        Material cached = opened.get(key.keyId());
        if (cached != null) {
            return Optional.of(cached);
        }
        Keyring.WrappedKey copy = key.wrapped().get(published.id());
        if (copy == null) {
            return Optional.empty();
        }
        try {
            Material m = Keyring.unwrap(key, copy, keystore);
            opened.put(key.keyId(), m);
            return Optional.of(m);
        } catch (GeneralSecurityException | RuntimeException e) {
            LOG.atWarn().addKeyValue("key_id", key.keyId()).setCause(e).log("cannot open this server's copy of a root key");
            return Optional.empty();
        }
    }

    Optional<RootKey> activeKey() {
        return store.snapshot().all(Keyring.ROOT_KEYS).filter(RootKey::active).findFirst();
    }

    /** Signs claims with the active key; fails when the keyring has none this server can open yet. */
    String sign(Map<String, Object> claims) {
        RootKey key = activeKey().orElseThrow(() -> new IllegalStateException("the keyring has no active root key yet"));
        Material m = open(key).orElseThrow(() -> new IllegalStateException(
                "this server holds no copy of root key " + key.keyId() + " yet"));
        boolean rsa = m.rsa() != null;
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("alg", rsa ? RS256 : EDDSA);
        header.put("kid", key.keyId());
        header.put("typ", "JWT");
        try {
            String signed = URL.encodeToString(JSON.writeValueAsBytes(header)) + "."
                    + URL.encodeToString(JSON.writeValueAsBytes(claims));
            Signature sig = Signature.getInstance(rsa ? "SHA256withRSA" : "Ed25519");
            sig.initSign(rsa ? m.rsa().getPrivate() : m.signingKey());
            sig.update(signed.getBytes(StandardCharsets.US_ASCII));
            return signed + "." + URL.encodeToString(sig.sign());
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign: " + e.getMessage(), e);
        }
    }

    /**
     * The claims of a JWT this keyring signed, if its signature verifies against the key its {@code kid} names and it
     * is within {@code nbf}/{@code exp}; empty otherwise (not ours, forged, expired, or its key removed).
     */
    Optional<Map<String, Object>> verify(String jwt) {
        return verifySignature(jwt).filter(claims -> timeProblem(claims).isEmpty());
    }

    /**
     * Why these claims are not valid now ({@code "expired"}, {@code "not yet valid"}), empty when they are: what
     * {@link #verify} checks after the signature, for callers that say why they refuse a token.
     */
    Optional<String> timeProblem(Map<String, Object> claims) {
        long now = clock.millis() / 1000;
        if (claims.get("exp") instanceof Number exp && now >= exp.longValue()) {
            return Optional.of("expired");
        }
        if (claims.get("nbf") instanceof Number nbf && now < nbf.longValue()) {
            return Optional.of("not yet valid");
        }
        return Optional.empty();
    }

    /** The claims of a JWT whose signature this keyring verifies, whatever its {@code nbf}/{@code exp}. */
    Optional<Map<String, Object>> verifySignature(String jwt) {
        String[] parts = jwt == null ? new String[0] : jwt.split("\\.", -1);
        if (parts.length != 3) {
            return Optional.empty();
        }
        try {
            Map<String, Object> header = JSON.readValue(UNURL.decode(parts[0]), new TypeReference<>() { });
            Object alg = header.get("alg");
            if (!(RS256.equals(alg) || EDDSA.equals(alg)) || !(header.get("kid") instanceof String kid)) {
                return Optional.empty();
            }
            Optional<RootKey> key = store.snapshot().get(Keyring.ROOT_KEYS, kid);
            if (key.isEmpty()) {
                return Optional.empty();
            }
            Signature sig;
            if (RS256.equals(alg)) {
                Optional<RSAPublicKey> rsa = Keyring.rsaPublicKey(key.get());
                if (rsa.isEmpty()) {
                    return Optional.empty();
                }
                sig = Signature.getInstance("SHA256withRSA");
                sig.initVerify(rsa.get());
            } else {
                sig = Signature.getInstance("Ed25519");
                sig.initVerify(Keyring.publicKey(key.get()));
            }
            sig.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
            if (!sig.verify(UNURL.decode(parts[2]))) {
                return Optional.empty();
            }
            return Optional.of(JSON.readValue(UNURL.decode(parts[1]), new TypeReference<>() { }));
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * The public keys as an RFC 7517 key set, every key not yet removed: its RSA key ({@code RS256}, what Nomad
     * publishes) and its Ed25519 key ({@code EdDSA}), both with {@code kid} = key ID; their {@code kty} and
     * {@code alg} tell them apart.
     */
    Map<String, Object> jwks() {
        List<Map<String, Object>> keys = new ArrayList<>();
        store.snapshot().all(Keyring.ROOT_KEYS).forEach(key -> {
            try {
                Keyring.rsaPublicKey(key).ifPresent(rsa -> {
                    Map<String, Object> jwk = new LinkedHashMap<>();
                    jwk.put("kty", "RSA");
                    jwk.put("kid", key.keyId());
                    jwk.put("use", "sig");
                    jwk.put("alg", RS256);
                    jwk.put("n", URL.encodeToString(unsigned(rsa.getModulus())));
                    jwk.put("e", URL.encodeToString(unsigned(rsa.getPublicExponent())));
                    keys.add(jwk);
                });
            } catch (GeneralSecurityException e) {
                LOG.atWarn().addKeyValue("key_id", key.keyId()).setCause(e).log("invalid RSA public key");
            }
            byte[] der = Keyring.unb64(key.publicKey());
            Map<String, Object> jwk = new LinkedHashMap<>();
            jwk.put("kty", "OKP");
            jwk.put("crv", "Ed25519");
            jwk.put("kid", key.keyId());
            jwk.put("use", "sig");
            jwk.put("alg", EDDSA);
            jwk.put("x", URL.encodeToString(Arrays.copyOfRange(der, ED25519_PREFIX, der.length)));
            keys.add(jwk);
        });
        return Map.of("keys", keys);
    }

    /** A JWK number: big-endian without the sign byte {@link BigInteger#toByteArray} may add (RFC 7518 §6.3.1). */
    private static byte[] unsigned(BigInteger n) {
        byte[] bytes = n.toByteArray();
        return bytes.length > 1 && bytes[0] == 0 ? Arrays.copyOfRange(bytes, 1, bytes.length) : bytes;
    }
}
