package io.caravan.tls.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

import javax.security.auth.x500.X500Principal;

import io.caravan.tls.Pem;
import io.caravan.tls.TlsSettings;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemGenerationException;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * A throwaway CA for tests (a test-jar other modules depend on): leaf certificates with the role names Nomad's carry
 * ({@code server.global.nomad}, {@code client.global.nomad}, plus {@code localhost} and {@code 127.0.0.1}), written
 * as PEM files in a directory. ECDSA P-256 throughout, valid from an hour ago for a day. Not the {@code caravan tls}
 * tooling: just enough to give listeners and diallers real certificates.
 */
public final class TestPki {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path dir;
    private final String name;
    private final KeyPair keys;
    private final X509Certificate certificate;
    private final Path caFile;

    /** One issued certificate and its key, as files. */
    public record Leaf(Path cert, Path key, X509Certificate certificate) {
        public BigInteger serial() {
            return certificate.getSerialNumber();
        }
    }

    private TestPki(Path dir, String name, KeyPair keys, X509Certificate certificate, Path caFile) {
        this.dir = dir;
        this.name = name;
        this.keys = keys;
        this.certificate = certificate;
        this.caFile = caFile;
    }

    /** A new CA named {@code name}, its certificate written to {@code dir/<name>-ca.pem}. */
    public static TestPki create(Path dir, String name) {
        KeyPair keys = ecKeys();
        X500Principal subject = new X500Principal("CN=Caravan test CA " + name);
        X509v3CertificateBuilder b = builder(subject, subject, keys);
        try {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign
                    | KeyUsage.digitalSignature));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        X509Certificate ca = sign(b, keys);
        return new TestPki(dir, name, keys, ca, write(dir.resolve(name + "-ca.pem"), ca));
    }

    public Path caFile() {
        return caFile;
    }

    public X509Certificate certificate() {
        return certificate;
    }

    /** {@code <region>-server-nomad.pem}: {@code server.<region>.nomad}, {@code localhost}, {@code 127.0.0.1}. */
    public Leaf server(String region) {
        return leaf(region + "-server-nomad", TlsSettings.roleName("server", region), "localhost");
    }

    /** {@code <region>-client-nomad.pem}: {@code client.<region>.nomad}, {@code localhost}, {@code 127.0.0.1}. */
    public Leaf client(String region) {
        return leaf(region + "-client-nomad", TlsSettings.roleName("client", region), "localhost");
    }

    /**
     * A certificate for server and client authentication naming {@code dnsNames} and 127.0.0.1, written to
     * {@code <stem>.pem} and {@code <stem>-key.pem} (a new serial each time: a second call replaces the files).
     */
    public Leaf leaf(String stem, String... dnsNames) {
        KeyPair leafKeys = ecKeys();
        X509v3CertificateBuilder b = builder(certificate.getSubjectX500Principal(),
                new X500Principal("CN=" + (dnsNames.length > 0 ? dnsNames[0] : stem)), leafKeys);
        List<GeneralName> names = new ArrayList<>();
        for (String dns : dnsNames) {
            names.add(new GeneralName(GeneralName.dNSName, dns));
        }
        names.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
        try {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature
                    | KeyUsage.keyEncipherment));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(new KeyPurposeId[] {
                    KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            b.addExtension(Extension.subjectAlternativeName, false,
                    new GeneralNames(names.toArray(GeneralName[]::new)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        X509Certificate cert = sign(b, keys);
        Path certFile = write(dir.resolve(stem + ".pem"), cert);
        // PKCS#8: Pem.encode writes a JDK EC key as SEC1 without its curve, which Pem.privateKey cannot read back.
        Path keyFile = write(dir.resolve(stem + "-key.pem"), pkcs8(leafKeys.getPrivate()));
        return new Leaf(certFile, keyFile, cert);
    }

    /**
     * Settings with {@code rpc} on for {@code leaf} trusting this CA (region global), the other switches as given.
     */
    public TlsSettings rpcSettings(Leaf leaf, boolean verifyServerHostname, boolean rpcUpgradeMode) {
        return new TlsSettings(false, true, caFile, leaf.cert(), leaf.key(), verifyServerHostname, false,
                rpcUpgradeMode, "tls12", List.of(), "global");
    }

    @Override
    public String toString() {
        return "TestPki " + name;
    }

    private static X509v3CertificateBuilder builder(X500Principal issuer, X500Principal subject, KeyPair subjectKeys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, new BigInteger(64, RANDOM).add(BigInteger.ONE),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), subject,
                subjectKeys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuerKeys) {
        try {
            return new JcaX509CertificateConverter().getCertificate(builder.build(
                    new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
        } catch (OperatorCreationException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a test certificate", e);
        }
    }

    private static KeyPair ecKeys() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static PemObject pkcs8(PrivateKey key) {
        try {
            return new JcaPKCS8Generator(key, null).generate();
        } catch (PemGenerationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path write(Path file, Object certificateOrKey) {
        try {
            Files.createDirectories(file.getParent());
            return Files.writeString(file, Pem.encode(certificateOrKey));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
