package io.caravan.consensus.internal;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Date;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.security.auth.x500.X500Principal;

/**
 * The certificate a server shows on the Raft port, and the check of a peer's. Self-signed; its subject is
 * {@code CN=<binding>}, where the binding is an HMAC of the certificate's public key under the cluster's secret (the
 * gossip key): only a holder of the secret can make a certificate another server accepts, and TLS proves that the
 * peer holds the certificate's private key. No CA and no hostnames: a peer's identity is its key's binding, not its
 * name.
 */
final class PeerCertificate {
    private static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
    private static final String COMMON_NAME = "2.5.4.3";
    private static final byte[] BINDING_LABEL = "caravan-raft-peer".getBytes(StandardCharsets.UTF_8);
    /** Backdated, so that a peer whose clock is a little behind accepts a fresh certificate. */
    private static final Duration BACKDATE = Duration.ofHours(1);
    private static final Duration LIFETIME = Duration.ofDays(3650);
    private static final SecureRandom RANDOM = new SecureRandom();

    private PeerCertificate() {
    }

    /** A self-signed X.509 v3 certificate for {@code keys}, bound to {@code secret}, valid from an hour before now. */
    static X509Certificate create(KeyPair keys, byte[] secret, Instant now) throws GeneralSecurityException {
        byte[] name = name(binding(secret, keys.getPublic()));
        byte[] algorithm = Der.sequence(Der.oid(ECDSA_WITH_SHA256));
        Instant from = now.truncatedTo(ChronoUnit.SECONDS).minus(BACKDATE);
        byte[] tbs = Der.sequence(
                Der.explicit(0, Der.integer(BigInteger.TWO)),   // v3
                Der.integer(new BigInteger(64, RANDOM).add(BigInteger.ONE)),   // positive, non-zero
                algorithm,
                name,   // issuer = subject: self-signed
                Der.sequence(Der.time(from), Der.time(from.plus(LIFETIME))),
                name,
                keys.getPublic().getEncoded());   // already a SubjectPublicKeyInfo
        Signature signer = Signature.getInstance("SHA256withECDSA");
        signer.initSign(keys.getPrivate());
        signer.update(tbs);
        byte[] der = Der.sequence(tbs, algorithm, Der.bitString(signer.sign()));
        return parse(der);
    }

    /** Parses a DER certificate with the JDK's X.509 parser (which rejects a malformed one). */
    static X509Certificate parse(byte[] der) throws CertificateException {
        return (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(der));
    }

    /** base64url(HMAC-SHA256(secret, "caravan-raft-peer" || the encoded public key)). */
    static String binding(byte[] secret, PublicKey key) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(BINDING_LABEL);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(key.getEncoded()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /**
     * Accepts a peer's chain only if it is exactly one certificate that verifies with its own key, is valid at
     * {@code now}, and names the binding of its key under {@code secret} (our secret, its key).
     */
    static void check(X509Certificate[] chain, byte[] secret, Instant now) throws CertificateException {
        if (chain == null || chain.length != 1) {
            throw new CertificateException("A Raft peer must present exactly one certificate, got "
                    + (chain == null ? 0 : chain.length));
        }
        X509Certificate certificate = chain[0];
        try {
            certificate.verify(certificate.getPublicKey());
        } catch (GeneralSecurityException e) {
            throw new CertificateException("The Raft peer's certificate is not signed by its own key", e);
        }
        certificate.checkValidity(Date.from(now));
        byte[] expected = ("CN=" + binding(secret, certificate.getPublicKey())).getBytes(StandardCharsets.UTF_8);
        byte[] actual = certificate.getSubjectX500Principal().getName(X500Principal.RFC2253)
                .getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(expected, actual)) {   // exact: X500Principal.equals ignores case
            throw new CertificateException("The Raft peer's certificate is not bound to this cluster's key "
                    + "(server encrypt)");
        }
    }

    private static byte[] name(String commonName) {
        return Der.sequence(Der.set(Der.sequence(Der.oid(COMMON_NAME), Der.utf8(commonName))));
    }
}
