package io.caravan.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Collections;
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
        if (settings.caFile() != null) {
            authorities = Pem.certificates(settings.caFile());
            digests.put("ca_file", digest(settings.caFile()));
        }
        List<X509Certificate> chain = Pem.certificates(settings.certFile());
        digests.put("cert_file", digest(settings.certFile()));
        PrivateKey key = Pem.privateKey(settings.keyFile());
        digests.put("key_file", digest(settings.keyFile()));
        X509Certificate leaf = chain.get(0);
        try {
            leaf.checkValidity(java.util.Date.from(now));
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
        String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            case "RSASSA-PSS" -> "RSASSA-PSS";
            default -> key.getAlgorithm();   // Ed25519, Ed448, EdDSA sign without a separate digest
        };
        try {
            byte[] probe = "caravan key check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            if (algorithm.equals("RSASSA-PSS")) {
                signer.setParameter(new java.security.spec.PSSParameterSpec("SHA-256", "MGF1",
                        java.security.spec.MGF1ParameterSpec.SHA256, 32, 1));
            }
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            if (algorithm.equals("RSASSA-PSS")) {
                verifier.setParameter(new java.security.spec.PSSParameterSpec("SHA-256", "MGF1",
                        java.security.spec.MGF1ParameterSpec.SHA256, 32, 1));
            }
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;   // a key of another algorithm than the certificate's
        }
    }

    private static String digest(Path file) throws TlsException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (IOException e) {
            throw new TlsException(file, "cannot be read: " + e.getMessage(), e);
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
