package io.caravan.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Certificates as Nomad's tls ca/cert create makes them, checked by parsing them with the JDK. */
class CertificateAuthorityTest {
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    private static final String KEY_USAGE = "2.5.29.15";
    private static final String BASIC_CONSTRAINTS = "2.5.29.19";
    private static final String NAME_CONSTRAINTS = "2.5.29.30";

    @TempDir
    Path dir;

    @Test
    void caIsSelfSignedP256WithNomadsSubjectUsagesAndKeyIds() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(CaSubject.NOMAD, 1825, List.of());
        X509Certificate c = ca.certificate();

        c.verify(c.getPublicKey());
        assertEquals("SHA256withECDSA", c.getSigAlgName());
        assertEquals("secp256r1 [NIST P-256,X9.62 prime256v1] (1.2.840.10045.3.1.7)",
                ((ECPublicKey) c.getPublicKey()).getParams().toString());
        assertEquals("CN=Nomad Agent CA " + c.getSerialNumber() + ", OU=Nomad, O=HashiCorp Inc., "
                + "OID.2.5.4.17=94105, STREET=101 Second Street, L=San Francisco, ST=CA, C=US",
                c.getSubjectX500Principal().toString());
        assertEquals(c.getSubjectX500Principal(), c.getIssuerX500Principal());
        assertTrue(c.getSerialNumber().bitLength() <= 128 && c.getSerialNumber().signum() > 0);
        assertEquals(Duration.ofDays(1825), Duration.between(c.getNotBefore().toInstant(), c.getNotAfter().toInstant()));
        // digitalSignature, keyCertSign, cRLSign; CA:TRUE without a path length; both critical.
        assertArrayEquals(new boolean[] {true, false, false, false, false, true, true, false, false}, c.getKeyUsage());
        assertEquals(Integer.MAX_VALUE, c.getBasicConstraints());
        assertEquals(Set.of(KEY_USAGE, BASIC_CONSTRAINTS), c.getCriticalExtensionOIDs());
        assertNull(c.getExtensionValue(NAME_CONSTRAINTS), "no name constraint unless asked");
        byte[] id = sha256(c.getPublicKey().getEncoded());
        assertArrayEquals(id, subjectKeyId(c));
        assertArrayEquals(id, authorityKeyId(c));
    }

    @Test
    void nameConstraintIsCriticalWithThePermittedZonesInOrder() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(CaSubject.NOMAD, 30,
                List.of("nomad", "localhost", "intra.example"));
        X509Certificate c = ca.certificate();

        assertTrue(c.getCriticalExtensionOIDs().contains(NAME_CONSTRAINTS));
        assertEquals(List.of("nomad", "localhost", "intra.example"), CertificateInfo.of(c).permittedDnsDomains());
        assertEquals(List.of("nomad", "localhost", "intra.example"), ca.permittedDnsDomains());
        assertEquals(Duration.ofDays(30), Duration.between(c.getNotBefore().toInstant(), c.getNotAfter().toInstant()));
    }

    @Test
    void customSubjectKeepsTheSerialInTheCommonNameAndLeavesBlankPartsOut() {
        CaSubject subject = new CaSubject("Acme CA", "DE", "", "", "", "", "Acme", "Ops");
        X509Certificate c = CertificateAuthority.create(subject, 10, List.of()).certificate();

        assertEquals("CN=Acme CA " + c.getSerialNumber() + ", OU=Ops, O=Acme, C=DE", c.getSubjectX500Principal().toString());
    }

    @Test
    void serverCertificateHasNomadsNamesUsagesAndChainsToTheCa() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(CaSubject.NOMAD, 1825, List.of());
        Credential server = ca.issue(AgentRole.SERVER.spec("eu", "nomad", List.of("core-1.intra.example"),
                List.of(InetAddress.getByName("10.0.0.1")), 365));
        X509Certificate c = server.certificate();

        assertEquals("CN=server.eu.nomad", c.getSubjectX500Principal().getName());
        assertEquals(ca.certificate().getSubjectX500Principal(), c.getIssuerX500Principal());
        assertEquals(List.of(List.of(2, "core-1.intra.example"), List.of(2, "server.eu.nomad"), List.of(2, "localhost"),
                List.of(7, "10.0.0.1"), List.of(7, "127.0.0.1")), List.copyOf(c.getSubjectAlternativeNames()));
        assertEquals(List.of(SERVER_AUTH, CLIENT_AUTH), c.getExtendedKeyUsage());
        // digitalSignature and keyEncipherment, critical; CA:FALSE, critical.
        assertArrayEquals(new boolean[] {true, false, true, false, false, false, false, false, false}, c.getKeyUsage());
        assertEquals(-1, c.getBasicConstraints());
        assertEquals(Set.of(KEY_USAGE, BASIC_CONSTRAINTS), c.getCriticalExtensionOIDs());
        assertEquals(Duration.ofDays(365), Duration.between(c.getNotBefore().toInstant(), c.getNotAfter().toInstant()));
        assertTrue(c.getSerialNumber().bitLength() <= 128);
        assertArrayEquals(sha256(c.getPublicKey().getEncoded()), subjectKeyId(c));
        assertArrayEquals(subjectKeyId(ca.certificate()), authorityKeyId(c));
        assertTrue(TlsMaterial.matches(server.key(), c));
        validate(c, ca.certificate());
    }

    @Test
    void clientAndCliCertificatesFollowNomadsRecipes() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(CaSubject.NOMAD, 1825, List.of());
        X509Certificate client = ca.issue(AgentRole.CLIENT.spec("global", "nomad", List.of(), List.of(), 365))
                .certificate();
        X509Certificate cli = ca.issue(AgentRole.CLI.spec("global", "nomad", List.of(), List.of(), 365)).certificate();

        assertEquals("CN=client.global.nomad", client.getSubjectX500Principal().getName());
        assertEquals(List.of(List.of(2, "client.global.nomad"), List.of(2, "localhost"), List.of(7, "127.0.0.1")),
                List.copyOf(client.getSubjectAlternativeNames()));
        assertEquals(List.of(SERVER_AUTH, CLIENT_AUTH), client.getExtendedKeyUsage());

        assertEquals("CN=cli.global.nomad", cli.getSubjectX500Principal().getName());
        assertEquals(List.of(List.of(2, "cli.global.nomad"), List.of(2, "localhost")),
                List.copyOf(cli.getSubjectAlternativeNames()), "no 127.0.0.1 for the CLI");
        assertEquals(List.of(CLIENT_AUTH, SERVER_AUTH), cli.getExtendedKeyUsage());
        validate(client, ca.certificate());
        validate(cli, ca.certificate());
        assertEquals("global-cli-nomad", AgentRole.CLI.filePrefix("global", "nomad"));
        assertEquals("eu-server-nomad", AgentRole.SERVER.filePrefix("eu", "nomad"));
    }

    @Test
    void serialsAreRandom() {
        CertificateAuthority ca = CertificateAuthority.create(CaSubject.NOMAD, 1825, List.of());
        CertificateSpec spec = AgentRole.CLIENT.spec("global", "nomad", List.of(), List.of(), 1);
        BigInteger a = ca.issue(spec).certificate().getSerialNumber();
        BigInteger b = ca.issue(spec).certificate().getSerialNumber();

        assertFalse(a.equals(b));
    }

    @Test
    void aCertificateFromAnotherCaDoesNotValidate() {
        CertificateAuthority ca = CertificateAuthority.create(CaSubject.NOMAD, 1825, List.of());
        CertificateAuthority other = CertificateAuthority.create(CaSubject.NOMAD, 1825, List.of());
        X509Certificate c = other.issue(AgentRole.SERVER.spec("global", "nomad", List.of(), List.of(), 365))
                .certificate();

        assertThrows(CertPathValidatorException.class, () -> validate(c, ca.certificate()));
    }

    @Test
    void aNameOutsideTheConstraintsIsRefusedBeforeAnythingIsSigned() {
        CertificateAuthority ca = CertificateAuthority.create(CaSubject.NOMAD, 1825,
                List.of("nomad", "localhost", "intra.example"));

        // Inside: the zone and names below it.
        ca.issue(AgentRole.SERVER.spec("eu", "nomad", List.of("a.intra.example", "intra.example"), List.of(), 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ca.issue(
                AgentRole.SERVER.spec("eu", "nomad", List.of("evil.example"), List.of(), 1)));
        assertEquals("the CA may not sign for DNS name \"evil.example\": its name constraints permit only "
                + "nomad, localhost, intra.example", e.getMessage());
        // "xintra.example" is not below "intra.example".
        assertThrows(IllegalArgumentException.class, () -> ca.issue(
                AgentRole.SERVER.spec("eu", "nomad", List.of("xintra.example"), List.of(), 1)));
    }

    @Test
    void writtenFilesLoadBackAndTheKeyIsOwnerOnlySec1() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(CaSubject.NOMAD, 1825, List.of());
        Path cert = dir.resolve("nomad-agent-ca.pem");
        Path key = dir.resolve("nomad-agent-ca-key.pem");
        ca.credential().write(cert, key);

        assertTrue(Files.readString(key).startsWith("-----BEGIN EC PRIVATE KEY-----"), Files.readString(key));
        assertTrue(Files.readString(cert).startsWith("-----BEGIN CERTIFICATE-----"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
        CertificateAuthority loaded = CertificateAuthority.load(cert, key);
        assertEquals(ca.certificate(), loaded.certificate());
        assertEquals(((ECPrivateKey) ca.credential().key()).getS(), ((ECPrivateKey) loaded.credential().key()).getS());
        assertThrows(FileAlreadyExistsException.class, () -> ca.credential().write(cert, key));
    }

    @Test
    void loadingRefusesAMismatchedKeyAndANonCaCertificateNamingTheFile() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(CaSubject.NOMAD, 1825, List.of());
        CertificateAuthority other = CertificateAuthority.create(CaSubject.NOMAD, 1825, List.of());
        Credential leaf = ca.issue(AgentRole.CLIENT.spec("global", "nomad", List.of(), List.of(), 1));
        ca.credential().write(dir.resolve("ca.pem"), dir.resolve("ca-key.pem"));
        other.credential().write(dir.resolve("other.pem"), dir.resolve("other-key.pem"));
        leaf.write(dir.resolve("leaf.pem"), dir.resolve("leaf-key.pem"));

        TlsException mismatch = assertThrows(TlsException.class,
                () -> CertificateAuthority.load(dir.resolve("ca.pem"), dir.resolve("other-key.pem")));
        assertEquals(dir.resolve("other-key.pem") + ": the private key does not match the certificate in "
                + dir.resolve("ca.pem"), mismatch.getMessage());
        TlsException notCa = assertThrows(TlsException.class,
                () -> CertificateAuthority.load(dir.resolve("leaf.pem"), dir.resolve("leaf-key.pem")));
        assertEquals(dir.resolve("leaf.pem") + ": not a CA certificate (its basic constraints say CA:FALSE)",
                notCa.getMessage());
        TlsException missing = assertThrows(TlsException.class,
                () -> CertificateAuthority.load(dir.resolve("nope.pem"), dir.resolve("ca-key.pem")));
        assertEquals(dir.resolve("nope.pem") + ": no such file", missing.getMessage());
    }

    @Test
    void infoSummarisesTheCertificate() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(CaSubject.NOMAD, 1825, List.of());
        X509Certificate c = ca.issue(AgentRole.SERVER.spec("eu", "nomad", List.of("x"),
                List.of(InetAddress.getByName("10.0.0.1")), 365)).certificate();

        CertificateInfo info = CertificateInfo.of(c);

        assertEquals("CN=server.eu.nomad", info.subject());
        assertEquals("Nomad Agent CA " + ca.certificate().getSerialNumber(), info.issuerCommonName());
        assertEquals(c.getSerialNumber(), info.serialNumber());
        assertEquals(c.getNotAfter().toInstant(), info.notAfter());
        assertEquals(List.of("x", "server.eu.nomad", "localhost"), info.dnsNames());
        assertEquals(List.of("10.0.0.1", "127.0.0.1"), info.ipAddresses());
        assertEquals(List.of("digital signature", "key encipherment"), info.keyUsages());
        assertEquals(List.of("server auth", "client auth"), info.extendedKeyUsages());
        assertFalse(info.ca());
        CertificateInfo caInfo = CertificateInfo.of(ca.certificate());
        assertTrue(caInfo.ca());
        assertEquals(List.of("digital signature", "certificate sign", "crl sign"), caInfo.keyUsages());
        assertTrue(caInfo.subject().startsWith("CN=Nomad Agent CA "), caInfo.subject());
    }

    @Test
    void daysBelowOneAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> CertificateAuthority.create(CaSubject.NOMAD, 0, List.of()));
        assertThrows(IllegalArgumentException.class,
                () -> AgentRole.SERVER.spec("global", "nomad", List.of(), List.of(), 0));
    }

    /** PKIX path validation by the JDK (signature, validity, CA flags, key usages) against the CA alone. */
    static void validate(X509Certificate leaf, X509Certificate ca) throws Exception {
        PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
        params.setRevocationEnabled(false);
        CertPathValidator.getInstance("PKIX").validate(
                CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf)), params);
    }

    private static byte[] sha256(byte[] bytes) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(bytes);
    }

    private static byte[] subjectKeyId(X509Certificate c) {
        return SubjectKeyIdentifier.getInstance(ASN1OctetString.getInstance(c.getExtensionValue("2.5.29.14"))
                .getOctets()).getKeyIdentifier();
    }

    private static byte[] authorityKeyId(X509Certificate c) {
        return AuthorityKeyIdentifier.getInstance(ASN1OctetString.getInstance(c.getExtensionValue("2.5.29.35"))
                .getOctets()).getKeyIdentifier();
    }

}
