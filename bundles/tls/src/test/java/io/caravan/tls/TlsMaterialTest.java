package io.caravan.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.caravan.tls.testing.TestPki;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlsMaterialTest {
    @TempDir
    Path dir;

    private TlsSettings settings(Path ca, Path cert, Path key) {
        return new TlsSettings(true, true, ca, cert, key, true, false, false, "tls12", List.of(), "global");
    }

    @Test
    void readsAndChecksTheThreeFiles() throws Exception {
        TestPki pki = TestPki.create(dir, "a");
        TestPki.Leaf server = pki.server("global");
        TlsMaterial m = TlsMaterial.load(settings(pki.caFile(), server.cert(), server.key()));
        assertEquals(server.serial(), m.chain().get(0).getSerialNumber());
        assertEquals(pki.certificate(), m.authorities().get(0));
        assertEquals(List.of("ca_file", "cert_file", "key_file"), List.copyOf(m.digests().keySet()));
        assertTrue(TlsMaterial.load(TlsSettings.DISABLED).fingerprint().isEmpty(), "TLS off: nothing read");
    }

    @Test
    void aFileReplacedAtTheSamePathChangesTheFingerprint() throws Exception {
        TestPki pki = TestPki.create(dir, "a");
        TestPki.Leaf first = pki.server("global");
        TlsSettings s = settings(pki.caFile(), first.cert(), first.key());
        String before = TlsMaterial.load(s).fingerprint();
        assertEquals(before, TlsMaterial.load(s).fingerprint(), "same files, same fingerprint");
        pki.server("global");   // new files at the same paths
        TlsMaterial after = TlsMaterial.load(s);
        assertNotEquals(before, after.fingerprint());
    }

    @Test
    void eachBadFileIsNamedWithItsReason() throws Exception {
        TestPki pki = TestPki.create(dir, "a");
        TestPki.Leaf server = pki.server("global");
        TestPki.Leaf other = pki.client("global");
        Path missing = dir.resolve("missing.pem");
        TlsException e = assertThrows(TlsException.class,
                () -> TlsMaterial.load(settings(pki.caFile(), missing, server.key())));
        assertEquals(missing, e.file());
        assertTrue(e.getMessage().contains("missing.pem") && e.getMessage().contains("no such file"), e.getMessage());

        Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a certificate\n");
        e = assertThrows(TlsException.class, () -> TlsMaterial.load(settings(garbage, server.cert(), server.key())));
        assertEquals(garbage, e.file());

        e = assertThrows(TlsException.class, () -> TlsMaterial.load(settings(pki.caFile(), server.cert(),
                server.cert())));
        assertTrue(e.getMessage().contains("no PEM private key"), e.getMessage());

        e = assertThrows(TlsException.class, () -> TlsMaterial.load(settings(pki.caFile(), server.cert(),
                other.key())));
        assertEquals(other.key(), e.file());
        assertTrue(e.getMessage().contains("does not match the certificate in " + server.cert()), e.getMessage());
    }

    @Test
    void anExpiredOrNotYetValidCertificateIsRefused() throws Exception {
        TestPki pki = TestPki.create(dir, "a");
        TestPki.Leaf server = pki.server("global");
        TlsSettings s = settings(pki.caFile(), server.cert(), server.key());
        TlsException expired = assertThrows(TlsException.class,
                () -> TlsMaterial.load(s, Instant.now().plus(Duration.ofDays(400))));
        assertTrue(expired.getMessage().contains("expired"), expired.getMessage());
        assertEquals(server.cert(), expired.file());
        TlsException early = assertThrows(TlsException.class,
                () -> TlsMaterial.load(s, Instant.now().minus(Duration.ofDays(2))));
        assertTrue(early.getMessage().contains("not valid before"), early.getMessage());
    }
}
