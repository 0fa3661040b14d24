package io.caravan.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files tls ca/cert create write, read by the real openssl binary: it must accept every one of them. */
class CertificateOpensslTest {

    private record Run(int code, String output) {}

    @TempDir
    Path dir;

    @BeforeAll
    static void opensslIsInstalled() {
        boolean present;
        try {
            present = openssl(Path.of("."), "version").code() == 0;
        } catch (IOException e) {
            present = false;
        }
        assumeTrue(present, "the openssl binary is not installed");
    }

    @Test
    void opensslReadsTheCaAsNomadsWithItsNameConstraints() throws Exception {
        CertificateAuthority.create(CaSubject.NOMAD, 1825, List.of("intra.example", "nomad", "localhost"))
                .credential().write(dir.resolve("nomad-agent-ca.pem"), dir.resolve("nomad-agent-ca-key.pem"));

        Run text = openssl(dir, "x509", "-noout", "-text", "-in", "nomad-agent-ca.pem");

        assertEquals(0, text.code(), text.output());
        String out = text.output();
        assertTrue(out.contains("Signature Algorithm: ecdsa-with-SHA256"), out);
        assertTrue(out.matches("(?s).*Subject: C = US, ST = CA, L = San Francisco, street = 101 Second Street, "
                + "postalCode = 94105, O = HashiCorp Inc\\., OU = Nomad, CN = Nomad Agent CA \\d+\n.*"), out);
        assertTrue(out.contains("NIST CURVE: P-256"), out);
        assertTrue(out.matches("(?s).*X509v3 Key Usage: critical\\s+Digital Signature, Certificate Sign, CRL Sign\n.*"), out);
        assertTrue(out.matches("(?s).*X509v3 Basic Constraints: critical\\s+CA:TRUE\n.*"), out);
        assertTrue(out.matches("(?s).*X509v3 Name Constraints: critical\\s+Permitted:\\s+DNS:intra.example\\s+"
                + "DNS:nomad\\s+DNS:localhost\n.*"), out);
        assertTrue(out.contains("X509v3 Subject Key Identifier"), out);
        assertTrue(out.contains("X509v3 Authority Key Identifier"), out);
        Run key = openssl(dir, "ec", "-check", "-noout", "-in", "nomad-agent-ca-key.pem");
        assertEquals(0, key.code(), key.output());
        assertTrue(key.output().contains("EC Key valid"), key.output());
        assertEquals(openssl(dir, "x509", "-noout", "-pubkey", "-in", "nomad-agent-ca.pem").output(),
                openssl(dir, "pkey", "-pubout", "-in", "nomad-agent-ca-key.pem").output(), "key and certificate pair");
    }

    @Test
    void opensslVerifiesServerClientAndCliCertificatesAgainstTheCa() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(CaSubject.NOMAD, 1825,
                List.of("intra.example", "nomad", "localhost"));
        ca.credential().write(dir.resolve("ca.pem"), dir.resolve("ca-key.pem"));
        ca.issue(AgentRole.SERVER.spec("eu", "nomad", List.of("core-1.intra.example"),
                List.of(InetAddress.getByName("10.20.130.52")), 365))
                .write(dir.resolve("server.pem"), dir.resolve("server-key.pem"));
        ca.issue(AgentRole.CLIENT.spec("eu", "nomad", List.of(), List.of(), 365))
                .write(dir.resolve("client.pem"), dir.resolve("client-key.pem"));
        ca.issue(AgentRole.CLI.spec("eu", "nomad", List.of(), List.of(), 365))
                .write(dir.resolve("cli.pem"), dir.resolve("cli-key.pem"));

        Run server = openssl(dir, "x509", "-noout", "-text", "-in", "server.pem");
        assertEquals(0, server.code(), server.output());
        String out = server.output();
        assertTrue(out.contains("Subject: CN = server.eu.nomad\n"), out);
        assertTrue(out.matches("(?s).*X509v3 Key Usage: critical\\s+Digital Signature, Key Encipherment\n.*"), out);
        assertTrue(out.matches("(?s).*X509v3 Extended Key Usage:\\s+TLS Web Server Authentication, "
                + "TLS Web Client Authentication\n.*"), out);
        assertTrue(out.matches("(?s).*X509v3 Basic Constraints: critical\\s+CA:FALSE\n.*"), out);
        assertTrue(out.matches("(?s).*X509v3 Subject Alternative Name:\\s+DNS:core-1.intra.example, "
                + "DNS:server.eu.nomad, DNS:localhost, IP Address:10.20.130.52, IP Address:127.0.0.1\n.*"), out);

        for (String cert : List.of("server.pem", "client.pem", "cli.pem")) {
            Run verify = openssl(dir, "verify", "-CAfile", "ca.pem", cert);
            assertEquals(0, verify.code(), verify.output());
            assertEquals(cert + ": OK", verify.output().strip());
            String stem = cert.substring(0, cert.length() - ".pem".length());
            assertEquals(openssl(dir, "x509", "-noout", "-pubkey", "-in", cert).output(),
                    openssl(dir, "pkey", "-pubout", "-in", stem + "-key.pem").output(), cert);
        }
        Run purpose = openssl(dir, "verify", "-CAfile", "ca.pem", "-purpose", "sslserver", "server.pem");
        assertEquals(0, purpose.code(), purpose.output());
        purpose = openssl(dir, "verify", "-CAfile", "ca.pem", "-purpose", "sslclient", "cli.pem");
        assertEquals(0, purpose.code(), purpose.output());
    }

    @Test
    void opensslRejectsACertificateFromAnotherCa() throws Exception {
        CertificateAuthority.create(CaSubject.NOMAD, 1825, List.of())
                .credential().write(dir.resolve("ca.pem"), dir.resolve("ca-key.pem"));
        CertificateAuthority.create(CaSubject.NOMAD, 1825, List.of())
                .issue(AgentRole.SERVER.spec("global", "nomad", List.of(), List.of(), 365))
                .write(dir.resolve("stranger.pem"), dir.resolve("stranger-key.pem"));

        Run verify = openssl(dir, "verify", "-CAfile", "ca.pem", "stranger.pem");

        assertNotEquals(0, verify.code(), verify.output());
        assertTrue(verify.output().contains("unable to get local issuer certificate"), verify.output());
    }

    private static Run openssl(Path dir, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add("openssl");
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        try {
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("openssl " + String.join(" ", args) + " did not finish within 30 s");
            }
            return new Run(p.exitValue(), output);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
