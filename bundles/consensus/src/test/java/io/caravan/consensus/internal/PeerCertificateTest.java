package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;

import javax.net.ssl.SSLEngine;
import javax.security.auth.x500.X500Principal;

import org.junit.jupiter.api.Test;

/** The Raft port's certificates: built with our DER encoder, parsed by the JDK, and checked against the secret. */
class PeerCertificateTest {
    private static final byte[] SECRET = RaftSettings.randomSecret();
    private static final Instant NOW = Instant.now();

    private static KeyPair keys() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    @Test
    void buildsASelfSignedV3CertificateNamedByTheBindingOfItsKey() throws Exception {
        KeyPair keys = keys();
        X509Certificate c = PeerCertificate.create(keys, SECRET, NOW);

        assertEquals(3, c.getVersion());
        assertEquals("SHA256withECDSA", c.getSigAlgName());
        assertTrue(c.getSerialNumber().signum() > 0, "positive serial");
        assertEquals(keys.getPublic(), c.getPublicKey());
        String binding = PeerCertificate.binding(SECRET, keys.getPublic());
        assertEquals(43, binding.length(), "base64url of 32 bytes, unpadded");
        assertEquals("CN=" + binding, c.getSubjectX500Principal().getName(X500Principal.RFC2253));
        assertEquals(c.getSubjectX500Principal(), c.getIssuerX500Principal());
        assertDoesNotThrow(() -> c.verify(keys.getPublic()));
        assertEquals(NOW.truncatedTo(ChronoUnit.SECONDS).minus(Duration.ofHours(1)), c.getNotBefore().toInstant());
        assertEquals(3650, Duration.between(c.getNotBefore().toInstant(), c.getNotAfter().toInstant()).toDays());
        assertArrayEquals(c.getEncoded(), PeerCertificate.parse(c.getEncoded()).getEncoded(), "re-parses");
        assertDoesNotThrow(() -> PeerCertificate.check(new X509Certificate[] {c}, SECRET, NOW));
    }

    @Test
    void refusesACertificateBoundToAnotherKey() throws Exception {
        X509Certificate other = PeerCertificate.create(keys(), RaftSettings.randomSecret(), NOW);
        CertificateException e = assertThrows(CertificateException.class,
                () -> PeerCertificate.check(new X509Certificate[] {other}, SECRET, NOW));
        assertTrue(e.getMessage().contains("not bound to this cluster's key"), e.getMessage());
    }

    @Test
    void refusesATamperedCertificate() throws Exception {
        KeyPair keys = keys();
        X509Certificate c = PeerCertificate.create(keys, SECRET, NOW);
        // Another binding in the subject: still well-formed DER, but the signature no longer matches.
        byte[] der = c.getEncoded();
        byte[] name = PeerCertificate.binding(SECRET, keys.getPublic()).getBytes(StandardCharsets.US_ASCII);
        int at = indexOf(der, name);
        assertTrue(at > 0);
        der[at] = (byte) (der[at] == 'A' ? 'B' : 'A');
        X509Certificate tampered = PeerCertificate.parse(der);
        CertificateException e = assertThrows(CertificateException.class,
                () -> PeerCertificate.check(new X509Certificate[] {tampered}, SECRET, NOW));
        assertTrue(e.getMessage().contains("not signed by its own key"), e.getMessage());
    }

    @Test
    void refusesAnExpiredOrNotYetValidCertificate() throws Exception {
        X509Certificate old = PeerCertificate.create(keys(), SECRET, NOW.minus(Duration.ofDays(3651)));
        assertThrows(CertificateExpiredException.class,
                () -> PeerCertificate.check(new X509Certificate[] {old}, SECRET, NOW));
        X509Certificate future = PeerCertificate.create(keys(), SECRET, NOW.plus(Duration.ofDays(1)));
        assertThrows(CertificateNotYetValidException.class,
                () -> PeerCertificate.check(new X509Certificate[] {future}, SECRET, NOW));
    }

    @Test
    void refusesAnythingButExactlyOneCertificate() throws Exception {
        X509Certificate c = PeerCertificate.create(keys(), SECRET, NOW);
        assertThrows(CertificateException.class, () -> PeerCertificate.check(new X509Certificate[0], SECRET, NOW));
        assertThrows(CertificateException.class, () -> PeerCertificate.check(null, SECRET, NOW));
        assertThrows(CertificateException.class,
                () -> PeerCertificate.check(new X509Certificate[] {c, c}, SECRET, NOW));
    }

    @Test
    void theTrustManagerAcceptsOnlyPeersOfTheSameSecretAsServerAndAsClient() throws Exception {
        RaftTls.PeerTrustManager trust = new RaftTls.PeerTrustManager(SECRET, Clock.fixed(NOW, ZoneOffset.UTC));
        X509Certificate[] peer = {RaftTls.generate(SECRET).certificate()};
        X509Certificate[] stranger = {RaftTls.generate(RaftSettings.randomSecret()).certificate()};
        // A certificate bound to another key, trusting ours: what a test's impostor presents.
        X509Certificate[] impostor = {RaftTls.generate(RaftSettings.randomSecret(), SECRET, NOW).certificate()};
        SSLEngine engine = null;   // ignored: no hostname check

        assertDoesNotThrow(() -> trust.checkServerTrusted(peer, "EC", engine));
        assertDoesNotThrow(() -> trust.checkClientTrusted(peer, "EC", engine));
        for (X509Certificate[] refused : new X509Certificate[][] {stranger, impostor}) {
            assertThrows(CertificateException.class, () -> trust.checkServerTrusted(refused, "EC", engine));
            assertThrows(CertificateException.class, () -> trust.checkClientTrusted(refused, "EC", engine));
            assertThrows(CertificateException.class, () -> trust.checkServerTrusted(refused, "EC"));
            assertThrows(CertificateException.class, () -> trust.checkClientTrusted(refused, "EC"));
        }
        assertEquals(0, trust.getAcceptedIssuers().length);
    }

    @Test
    void derEncodesObjectIdentifiersTimesAndLongLengths() {
        assertEquals("06082a8648ce3d040302", HexFormat.of().formatHex(Der.oid("1.2.840.10045.4.3.2")));
        assertEquals("170d3336303130313030303030305a",
                HexFormat.of().formatHex(Der.time(Instant.parse("2036-01-01T00:00:00Z"))));
        assertEquals("180f32303530303130313030303030305a",
                HexFormat.of().formatHex(Der.time(Instant.parse("2050-01-01T00:00:00Z"))));
        byte[] long300 = Der.tlv(0x04, new byte[300]);
        assertEquals("0482012c", HexFormat.of().formatHex(long300, 0, 4));
        assertEquals(304, long300.length);
        assertEquals("020100", HexFormat.of().formatHex(Der.integer(BigInteger.ZERO)));
        assertEquals("02020080", HexFormat.of().formatHex(Der.integer(BigInteger.valueOf(128))));
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
