package io.caravan.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.util.List;

import org.bouncycastle.asn1.DERBitString;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;

/**
 * A certificate (chain, leaf first) and its private key: what {@code tls ca create} and {@code tls cert create}
 * write, and what a CA or a TLS client loads.
 */
public record Credential(List<X509Certificate> chain, PrivateKey key) {

    public Credential {
        chain = List.copyOf(chain);
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("a credential needs a certificate");
        }
    }

    /** Reads a certificate file and a key file and checks that the key is the certificate's. */
    public static Credential load(Path certFile, Path keyFile) throws TlsException {
        List<X509Certificate> chain = Pem.certificates(certFile);
        PrivateKey key = Pem.privateKey(keyFile);
        if (!TlsMaterial.matches(key, chain.get(0))) {
            throw new TlsException(keyFile, "the private key does not match the certificate in " + certFile);
        }
        return new Credential(chain, key);
    }

    /** The leaf. */
    public X509Certificate certificate() {
        return chain.get(0);
    }

    public String certificatePem() {
        StringBuilder out = new StringBuilder();
        chain.forEach(c -> out.append(Pem.encode(c)));
        return out.toString();
    }

    /**
     * The key as Nomad writes it: SEC1 ({@code EC PRIVATE KEY}) with the named curve and the public key, as Go's
     * {@code MarshalECPrivateKey}; other keys as {@link Pem#encode} writes them.
     */
    public String keyPem() {
        if (!(key instanceof ECPrivateKey ec)) {
            return Pem.encode(key);
        }
        // The JDK's PKCS#8 encoding carries the curve only in the outer algorithm identifier, so converting it
        // to SEC1 as it stands would drop the curve: build the full SEC1 structure instead.
        AlgorithmIdentifier algorithm = PrivateKeyInfo.getInstance(key.getEncoded()).getPrivateKeyAlgorithm();
        DERBitString publicKey = new DERBitString(SubjectPublicKeyInfo
                .getInstance(certificate().getPublicKey().getEncoded()).getPublicKeyData().getOctets());
        try {
            return Pem.encode(new PrivateKeyInfo(algorithm, new org.bouncycastle.asn1.sec.ECPrivateKey(
                    ec.getParams().getOrder().bitLength(), ec.getS(), publicKey, algorithm.getParameters())));
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode the EC key", e);
        }
    }

    /**
     * Writes the certificate, then the key (owner-only where the file system has POSIX permissions, as Nomad's
     * 0600). Never replaces a file: an existing one is a {@link java.nio.file.FileAlreadyExistsException}.
     */
    public void write(Path certFile, Path keyFile) throws IOException {
        Files.writeString(certFile, certificatePem(), StandardCharsets.US_ASCII, StandardOpenOption.CREATE_NEW);
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            // Created owner-only, so the key is never readable by others, not even for a moment.
            Files.createFile(keyFile, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(keyFile, keyPem(), StandardCharsets.US_ASCII, StandardOpenOption.TRUNCATE_EXISTING);
        } else {
            Files.writeString(keyFile, keyPem(), StandardCharsets.US_ASCII, StandardOpenOption.CREATE_NEW);
        }
    }
}
