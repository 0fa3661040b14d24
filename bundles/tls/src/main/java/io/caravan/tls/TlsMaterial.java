package io.caravan.tls;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.time.Instant;
import java.util.Collections;
import java.util.Date;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a TLS endpoint presents and trusts, read from the PEM files of {@link TlsSettings} and checked before it is
 * used: every file readable and PEM, the key the certificate's, the certificate current. Immutable; a reload reads a
 * new one ({@link ReloadableTls#reload}).
 */
public final class TlsMaterial {
    private final List<X509Certificate> authorities;
    private final List<X509Certificate> chain;
    private final PrivateKey key;
    private final Map<String, String> digests;

    private TlsMaterial(List<X509Certificate> authorities, List<X509Certificate> chain, PrivateKey key,
                        Map<String, String> digests) {
        this.authorities = authorities;
        this.chain = chain;
        this.key = key;
        this.digests = digests;
    }

    /** Reads and checks the files the settings name (none when TLS is off: empty material). */
    public static TlsMaterial load(TlsSettings settings) throws TlsException {
        return load(settings, Instant.now());
    }

    static TlsMaterial load(TlsSettings settings, Instant now) throws TlsException {
        settings.validate();
        if (!settings.enabled()) {
            return new TlsMaterial(List.of(), List.of(), null, Map.of());
        }
        Map<String, String> digests = new LinkedHashMap<>();
        List<X509Certificate> authorities = List.of();
        // Each file read once: what is parsed is what is fingerprinted, even while a rotation rewrites the files.
        if (settings.caFile() != null) {
            byte[] ca = Pem.read(settings.caFile());
            authorities = Pem.certificates(settings.caFile(), ca);
            digests.put("ca_file", sha256(ca));
        }
        byte[] cert = Pem.read(settings.certFile());
        List<X509Certificate> chain = Pem.certificates(settings.certFile(), cert);
        digests.put("cert_file", sha256(cert));
        byte[] keyPem = Pem.read(settings.keyFile());
        PrivateKey key = Pem.privateKey(settings.keyFile(), keyPem);
        digests.put("key_file", sha256(keyPem));
        X509Certificate leaf = chain.get(0);
        try {
            leaf.checkValidity(Date.from(now));
        } catch (CertificateExpiredException e) {
            throw new TlsException(settings.certFile(), "the certificate expired on " + leaf.getNotAfter().toInstant());
        } catch (CertificateNotYetValidException e) {
            throw new TlsException(settings.certFile(), "the certificate is not valid before "
                    + leaf.getNotBefore().toInstant());
        }
        if (!matches(key, leaf)) {
            throw new TlsException(settings.keyFile(), "the private key does not match the certificate in "
                    + settings.certFile());
        }
        return new TlsMaterial(List.copyOf(authorities), List.copyOf(chain), key,
                Collections.unmodifiableMap(digests));   // in file order: the fingerprint joins them
    }

    /** Signs with the key and verifies with the certificate: true when they are one pair, whatever the algorithm. */
    static boolean matches(PrivateKey key, X509Certificate certificate) {
        try {
            byte[] probe = "caravan key check".getBytes(StandardCharsets.US_ASCII);
            Signature signer = signature(key.getAlgorithm());
            signer.initSign(key);
            signer.update(probe);
            byte[] signed = signer.sign();
            Signature verifier = signature(key.getAlgorithm());
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(probe);
            return verifier.verify(signed);
        } catch (GeneralSecurityException e) {
            return false;   // a key of another algorithm than the certificate's
        }
    }

    private static Signature signature(String keyAlgorithm) throws GeneralSecurityException {
        return switch (keyAlgorithm) {
            case "EC" -> Signature.getInstance("SHA256withECDSA");
            case "RSA" -> Signature.getInstance("SHA256withRSA");
            case "RSASSA-PSS" -> {
                Signature pss = Signature.getInstance("RSASSA-PSS");
                pss.setParameter(new PSSParameterSpec("SHA-256", "MGF1",
                        MGF1ParameterSpec.SHA256, 32, 1));
                yield pss;
            }
            default -> Signature.getInstance(keyAlgorithm);   // Ed25519, Ed448, EdDSA sign without a separate digest
        };
    }

    private static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The CA certificates peers must chain to (empty: no CA configured). */
    public List<X509Certificate> authorities() {
        return authorities;
    }

    /** This agent's certificate first, then any intermediates from the same file (empty when TLS is off). */
    public List<X509Certificate> chain() {
        return chain;
    }

    public PrivateKey key() {
        return key;
    }

    /** SHA-256 of each file's bytes by its key ({@code ca_file}, {@code cert_file}, {@code key_file}). */
    public Map<String, String> digests() {
        return digests;
    }

    /** One value that changes whenever any of the files' contents do. */
    public String fingerprint() {
        return digests.isEmpty() ? "" : String.join(",", digests.values());
    }
}
