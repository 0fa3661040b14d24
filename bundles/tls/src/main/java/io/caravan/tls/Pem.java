package io.caravan.tls;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;

/**
 * PEM files as Nomad, Consul, Vault and openssl write them: certificates, and private keys in SEC1
 * ({@code EC PRIVATE KEY}), PKCS#1 ({@code RSA PRIVATE KEY}) or PKCS#8 ({@code PRIVATE KEY}). Only the JDK's
 * providers are used (BouncyCastle's is never registered), so this works on a plain class path and in OSGi alike.
 */
public final class Pem {
    private Pem() {
    }

    /** Every certificate in the file, in order (a chain: the leaf first). */
    public static List<X509Certificate> certificates(Path file) throws TlsException {
        return certificates(file, read(file));
    }

    /** The certificates in {@code content}, read from {@code file} (named in errors). */
    static List<X509Certificate> certificates(Path file, byte[] content) throws TlsException {
        List<X509Certificate> out = new ArrayList<>();
        for (Object o : objects(file, content)) {
            if (o instanceof X509CertificateHolder holder) {
                try {
                    out.add(new JcaX509CertificateConverter().getCertificate(holder));
                } catch (CertificateException e) {
                    throw new TlsException(file, "not a valid certificate: " + e.getMessage(), e);
                }
            }
        }
        if (out.isEmpty()) {
            throw new TlsException(file, "no PEM certificate (-----BEGIN CERTIFICATE-----) found");
        }
        return out;
    }

    /** The first private key in the file. */
    public static PrivateKey privateKey(Path file) throws TlsException {
        return privateKey(file, read(file));
    }

    /** The first private key in {@code content}, read from {@code file} (named in errors). */
    static PrivateKey privateKey(Path file, byte[] content) throws TlsException {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        for (Object o : objects(file, content)) {
            try {
                if (o instanceof PEMKeyPair pair) {
                    return converter.getPrivateKey(pair.getPrivateKeyInfo());
                }
                if (o instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                }
            } catch (IOException e) {
                throw new TlsException(file, "not a usable private key: " + e.getMessage(), e);
            }
        }
        throw new TlsException(file, "no PEM private key (-----BEGIN ... PRIVATE KEY-----) found");
    }

    /** A PEM file's bytes; a missing or unreadable file is a {@link TlsException} naming it. */
    static byte[] read(Path file) throws TlsException {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new TlsException(file, "no such file");
        } catch (IOException e) {
            throw new TlsException(file, "cannot be read: " + e.getMessage(), e);
        }
    }

    private static List<Object> objects(Path file, byte[] content) throws TlsException {
        return parse(file, new StringReader(new String(content, StandardCharsets.US_ASCII)));
    }

    private static List<Object> parse(Path file, Reader reader) throws TlsException {
        List<Object> out = new ArrayList<>();
        try (PEMParser parser = new PEMParser(reader)) {
            for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
                out.add(o);
            }
        } catch (IOException | RuntimeException e) {
            throw new TlsException(file, "not a PEM file: " + e.getMessage(), e);
        }
        return out;
    }

    /**
     * One object in PEM: a certificate as {@code CERTIFICATE}, a JDK private key as PKCS#8 {@code PRIVATE KEY} (a JDK
     * EC key written as SEC1 would lose its curve; {@link Credential#keyPem} writes Nomad's SEC1 form), BouncyCastle's
     * ASN.1 objects as their own type.
     */
    public static String encode(Object certificateOrKey) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(certificateOrKey instanceof PrivateKey key ? new JcaPKCS8Generator(key, null).generate()
                    : certificateOrKey);
        } catch (IOException e) {
            throw new IllegalStateException("PEM encoding failed", e);   // a StringWriter does not fail
        }
        return out.toString();
    }
}
