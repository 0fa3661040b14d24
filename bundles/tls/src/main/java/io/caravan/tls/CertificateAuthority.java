package io.caravan.tls;

import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;

import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.NameConstraints;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import io.caravan.tls.CertificateSpec.Purpose;

/**
 * An agent CA with the semantics of Nomad's {@code tls ca create} and {@code tls cert create}: ECDSA P-256 keys,
 * random 128-bit serials, key identifiers that are the SHA-256 of the public key, SHA-256 signatures, and optional
 * DNS name constraints. Only the JDK's providers are used (BouncyCastle builds the ASN.1).
 */
public final class CertificateAuthority {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Credential credential;
    private final List<String> permittedDnsDomains;

    private CertificateAuthority(Credential credential) {
        this.credential = credential;
        this.permittedDnsDomains = CertificateInfo.of(credential.certificate()).permittedDnsDomains();
    }

    /**
     * A new self-signed CA valid for {@code days} from now; {@code permittedDnsDomains} non-empty: the CA may only
     * sign names in those DNS zones (a critical name constraint).
     */
    public static CertificateAuthority create(CaSubject subject, int days, List<String> permittedDnsDomains) {
        if (days < 1) {
            throw new IllegalArgumentException("a CA must be valid for at least one day, not " + days);
        }
        KeyPair keys = newKeyPair();
        BigInteger serial = newSerial();
        X500NameBuilder name = new X500NameBuilder(BCStyle.INSTANCE);
        // Go's order (crypto/x509/pkix.Name), so openssl prints the subject as it does for Nomad's CA.
        addIfSet(name, BCStyle.C, subject.country());
        addIfSet(name, BCStyle.ST, subject.province());
        addIfSet(name, BCStyle.L, subject.locality());
        addIfSet(name, BCStyle.STREET, subject.streetAddress());
        addIfSet(name, BCStyle.POSTAL_CODE, subject.postalCode());
        addIfSet(name, BCStyle.O, subject.organization());
        addIfSet(name, BCStyle.OU, subject.organizationalUnit());
        name.addRDN(BCStyle.CN, subject.commonName() + " " + serial);
        X500Name dn = name.build();
        byte[] keyId = keyId(keys.getPublic());
        Instant now = now();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(dn, serial, Date.from(now),
                Date.from(now.plus(Duration.ofDays(days))), dn, keys.getPublic());
        try {
            builder.addExtension(Extension.keyUsage, true,
                    new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyCertSign | KeyUsage.cRLSign));
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            builder.addExtension(Extension.subjectKeyIdentifier, false, new SubjectKeyIdentifier(keyId));
            builder.addExtension(Extension.authorityKeyIdentifier, false, new AuthorityKeyIdentifier(keyId));
            if (!permittedDnsDomains.isEmpty()) {
                GeneralSubtree[] permitted = permittedDnsDomains.stream()
                        .map(d -> new GeneralSubtree(new GeneralName(GeneralName.dNSName, d)))
                        .toArray(GeneralSubtree[]::new);
                builder.addExtension(Extension.nameConstraints, true, new NameConstraints(permitted, null));
            }
        } catch (CertIOException e) {
            throw new IllegalStateException("cannot encode the CA's extensions", e);
        }
        return new CertificateAuthority(new Credential(List.of(sign(builder, keys.getPrivate())), keys.getPrivate()));
    }

    /** A CA from its certificate and key files (PEM), as {@code tls cert create -ca -key} reads them. */
    public static CertificateAuthority load(Path certFile, Path keyFile) throws TlsException {
        Credential credential = Credential.load(certFile, keyFile);
        if (credential.certificate().getBasicConstraints() < 0) {
            throw new TlsException(certFile, "not a CA certificate (its basic constraints say CA:FALSE)");
        }
        return new CertificateAuthority(credential);
    }

    public Credential credential() {
        return credential;
    }

    public X509Certificate certificate() {
        return credential.certificate();
    }

    /** The DNS zones this CA may sign names in (empty: any). */
    public List<String> permittedDnsDomains() {
        return permittedDnsDomains;
    }

    /**
     * A new key and a certificate for it signed by this CA.
     *
     * @throws IllegalArgumentException a DNS name outside the CA's name constraints (no client would accept the
     *                                  certificate, so none is made)
     */
    public Credential issue(CertificateSpec spec) {
        for (String dnsName : spec.dnsNames()) {
            if (!permits(dnsName)) {
                throw new IllegalArgumentException("the CA may not sign for DNS name \"" + dnsName
                        + "\": its name constraints permit only " + String.join(", ", permittedDnsDomains));
            }
        }
        KeyPair keys = newKeyPair();
        Instant now = now();
        X509v3CertificateBuilder builder;
        try {
            builder = new JcaX509v3CertificateBuilder(certificate(), newSerial(), Date.from(now),
                    Date.from(now.plus(Duration.ofDays(spec.days()))),
                    new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, spec.commonName()).build(),
                    keys.getPublic());
            builder.addExtension(Extension.keyUsage, true,
                    new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            if (!spec.purposes().isEmpty()) {
                builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(spec.purposes().stream()
                        .map(p -> p == Purpose.SERVER_AUTH ? KeyPurposeId.id_kp_serverAuth : KeyPurposeId.id_kp_clientAuth)
                        .toArray(KeyPurposeId[]::new)));
            }
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            builder.addExtension(Extension.subjectKeyIdentifier, false, new SubjectKeyIdentifier(keyId(keys.getPublic())));
            builder.addExtension(Extension.authorityKeyIdentifier, false,
                    new AuthorityKeyIdentifier(keyId(certificate().getPublicKey())));
            List<GeneralName> names = new ArrayList<>();
            spec.dnsNames().forEach(n -> names.add(new GeneralName(GeneralName.dNSName, n)));
            for (InetAddress ip : spec.ipAddresses()) {
                names.add(new GeneralName(GeneralName.iPAddress, new DEROctetString(ip.getAddress())));
            }
            if (!names.isEmpty()) {
                builder.addExtension(Extension.subjectAlternativeName, false,
                        new GeneralNames(names.toArray(GeneralName[]::new)));
            }
        } catch (CertIOException e) {
            throw new IllegalStateException("cannot encode the certificate's extensions", e);
        }
        return new Credential(List.of(sign(builder, credential.key())), keys.getPrivate());
    }

    /** RFC 5280 DNS name constraints: the zone itself and every name below it. */
    private boolean permits(String dnsName) {
        if (permittedDnsDomains.isEmpty()) {
            return true;
        }
        String name = dnsName.toLowerCase(Locale.ROOT);
        for (String zone : permittedDnsDomains) {
            String z = zone.toLowerCase(Locale.ROOT);
            if (z.startsWith(".") ? name.endsWith(z) : name.equals(z) || name.endsWith("." + z)) {
                return true;
            }
        }
        return false;
    }

    private static void addIfSet(X500NameBuilder name, ASN1ObjectIdentifier type, String value) {
        if (value != null && !value.isBlank()) {
            name.addRDN(type, value);
        }
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signer) {
        String algorithm = signer.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
        try {
            return new JcaX509CertificateConverter()
                    .getCertificate(builder.build(new JcaContentSignerBuilder(algorithm).build(signer)));
        } catch (OperatorCreationException | CertificateException e) {
            throw new IllegalStateException("cannot sign with the CA's " + signer.getAlgorithm() + " key: "
                    + e.getMessage(), e);
        }
    }

    private static KeyPair newKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no ECDSA P-256", e);
        }
    }

    /** Random and below 2^128, as Nomad's; never zero (X.509 serials are positive). */
    private static BigInteger newSerial() {
        BigInteger serial;
        do {
            serial = new BigInteger(128, RANDOM);
        } while (serial.signum() == 0);
        return serial;
    }

    /** SHA-256 of the DER SubjectPublicKeyInfo: Nomad's subject and authority key identifiers. */
    private static byte[] keyId(PublicKey key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getEncoded());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** X.509 times have whole seconds. */
    private static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.SECONDS);
    }
}
