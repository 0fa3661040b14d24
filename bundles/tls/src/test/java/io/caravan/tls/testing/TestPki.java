package io.caravan.tls.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;

import io.caravan.tls.CaSubject;
import io.caravan.tls.CertificateAuthority;
import io.caravan.tls.CertificateSpec;
import io.caravan.tls.Credential;
import io.caravan.tls.TlsSettings;

/**
 * A throwaway CA for tests (a test-jar other modules depend on), made with {@link CertificateAuthority} as
 * {@code caravan tls} makes one: leaf certificates with the role names Nomad's carry ({@code server.global.nomad},
 * {@code client.global.nomad}, plus {@code localhost} and {@code 127.0.0.1}), written as PEM files in a directory,
 * valid for a day.
 */
public final class TestPki {
    private final Path dir;
    private final String name;
    private final CertificateAuthority ca;
    private final Path caFile;

    /** One issued certificate and its key, as files. */
    public record Leaf(Path cert, Path key, X509Certificate certificate) {
        public BigInteger serial() {
            return certificate.getSerialNumber();
        }
    }

    private TestPki(Path dir, String name, CertificateAuthority ca, Path caFile) {
        this.dir = dir;
        this.name = name;
        this.ca = ca;
        this.caFile = caFile;
    }

    /** A new CA named {@code name}, its certificate written to {@code dir/<name>-ca.pem}. */
    public static TestPki create(Path dir, String name) {
        CaSubject subject = new CaSubject("Caravan test CA " + name, "", "", "", "", "", "", "");
        CertificateAuthority ca = CertificateAuthority.create(subject, 1, List.of());
        Path caFile = dir.resolve(name + "-ca.pem");
        try {
            Files.createDirectories(dir);
            Files.writeString(caFile, ca.credential().certificatePem());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new TestPki(dir, name, ca, caFile);
    }

    public Path caFile() {
        return caFile;
    }

    public X509Certificate certificate() {
        return ca.certificate();
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
        Credential issued = ca.issue(new CertificateSpec(dnsNames.length > 0 ? dnsNames[0] : stem, List.of(dnsNames),
                List.of(InetAddress.getLoopbackAddress()),
                List.of(CertificateSpec.Purpose.SERVER_AUTH, CertificateSpec.Purpose.CLIENT_AUTH), 1));
        Path cert = dir.resolve(stem + ".pem");
        Path key = dir.resolve(stem + "-key.pem");
        try {
            Files.deleteIfExists(cert);
            Files.deleteIfExists(key);
            issued.write(cert, key);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Leaf(cert, key, issued.certificate());
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
}
