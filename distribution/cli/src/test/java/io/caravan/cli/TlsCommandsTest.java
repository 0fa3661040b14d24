package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;

import io.caravan.tls.CertificateInfo;
import io.caravan.tls.Pem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** caravan tls ca create / cert create / cert info in a temporary working directory: files, SANs, messages. */
class TlsCommandsTest {
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

    @TempDir
    Path dir;

    @Test
    void caCreateWritesNomadsFilesAndRefusesToOverwriteThem() throws Exception {
        Cli.Result r = Cli.inDir(dir, Map.of(), "tls", "ca", "create");

        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("==> CA certificate saved to: nomad-agent-ca.pem",
                "==> CA certificate key saved to: nomad-agent-ca-key.pem"), r.outLines());
        X509Certificate ca = Pem.certificates(dir.resolve("nomad-agent-ca.pem")).get(0);
        assertTrue(ca.getSubjectX500Principal().getName().startsWith("CN=Nomad Agent CA " + ca.getSerialNumber()));
        assertEquals(List.of(), CertificateInfo.of(ca).permittedDnsDomains());
        String before = Files.readString(dir.resolve("nomad-agent-ca.pem"));

        Cli.Result again = Cli.inDir(dir, Map.of(), "tls", "ca", "create");

        assertEquals(1, again.code());
        assertEquals(List.of("CA certificate file 'nomad-agent-ca.pem' already exists"), again.errLines());
        assertEquals(before, Files.readString(dir.resolve("nomad-agent-ca.pem")), "untouched");
    }

    @Test
    void seedFlowCaWithNameConstraintsThenServerCertificateForRegionEu() throws Exception {
        // Seed 002, with caravan in place of consul: -additional-name-constraint and -dc are Consul's spellings.
        Cli.Result ca = Cli.inDir(dir, Map.of(), "tls", "ca", "create", "-domain", "nomad",
                "-additional-name-constraint=intra.example", "-name-constraint");
        assertEquals(0, ca.code(), ca.err());
        assertEquals(List.of("nomad", "localhost", "intra.example"),
                CertificateInfo.of(Pem.certificates(dir.resolve("nomad-agent-ca.pem")).get(0)).permittedDnsDomains());

        Cli.Result server = Cli.inDir(dir, Map.of(), "tls", "cert", "create", "-server", "-region", "eu",
                "-additional-dnsname", "x", "-additional-ipaddress", "10.0.0.1", "-additional-dnsname=core-1.intra.example");

        assertEquals(1, server.code(), server.out() + server.err());   // "x" is outside the CA's zones
        assertEquals("the CA may not sign for DNS name \"x\": its name constraints permit only nomad, localhost, "
                + "intra.example", server.errLines().get(server.errLines().size() - 1));
        assertFalse(Files.exists(dir.resolve("eu-server-nomad.pem")));

        server = Cli.inDir(dir, Map.of(), "tls", "cert", "create", "-server", "-domain=nomad", "-dc=eu",
                "-additional-dnsname=core-1.intra.example", "-additional-ipaddress=10.0.0.1");
        assertEquals(0, server.code(), server.err());
        X509Certificate c = Pem.certificates(dir.resolve("eu-server-nomad.pem")).get(0);
        assertEquals(List.of(List.of(2, "core-1.intra.example"), List.of(2, "server.eu.nomad"), List.of(2, "localhost"),
                List.of(7, "10.0.0.1"), List.of(7, "127.0.0.1")), List.copyOf(c.getSubjectAlternativeNames()));
        assertTrue(Files.exists(dir.resolve("eu-server-nomad-key.pem")));
    }

    @Test
    void serverCertificateWithoutConstraintsCarriesTheGivenNamesAndNomadsMessages() throws Exception {
        assertEquals(0, Cli.inDir(dir, Map.of(), "tls", "ca", "create").code());

        Cli.Result r = Cli.inDir(dir, Map.of(), "tls", "cert", "create", "-server", "-region", "eu",
                "-additional-dnsname", "x", "-additional-ipaddress", "10.0.0.1");

        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("==> Using CA file nomad-agent-ca.pem and CA key nomad-agent-ca-key.pem",
                "==> Server Certificate saved to eu-server-nomad.pem",
                "==> Server Certificate key saved to eu-server-nomad-key.pem"), r.outLines());
        assertTrue(r.err().startsWith("==> WARNING: A server certificate"), r.err());
        X509Certificate c = Pem.certificates(dir.resolve("eu-server-nomad.pem")).get(0);
        assertEquals("CN=server.eu.nomad", c.getSubjectX500Principal().getName());
        assertEquals(List.of(List.of(2, "x"), List.of(2, "server.eu.nomad"), List.of(2, "localhost"),
                List.of(7, "10.0.0.1"), List.of(7, "127.0.0.1")), List.copyOf(c.getSubjectAlternativeNames()));
        assertEquals(List.of(SERVER_AUTH, CLIENT_AUTH), c.getExtendedKeyUsage());
        c.verify(Pem.certificates(dir.resolve("nomad-agent-ca.pem")).get(0).getPublicKey());
        assertTrue(Files.readString(dir.resolve("eu-server-nomad-key.pem")).startsWith("-----BEGIN EC PRIVATE KEY-----"));

        Cli.Result again = Cli.inDir(dir, Map.of(), "tls", "cert", "create", "-server", "-region", "eu");
        assertEquals(1, again.code());
        assertEquals(List.of("Certificate file 'eu-server-nomad.pem' already exists"), again.errLines());
    }

    @Test
    void clientAndCliCertificatesUseTheRegionFromTheEnvironmentAndTheirOwnFileNames() throws Exception {
        assertEquals(0, Cli.inDir(dir, Map.of(), "tls", "ca", "create").code());

        Cli.Result client = Cli.inDir(dir, Map.of("NOMAD_REGION", "us"), "tls", "cert", "create", "-client");
        Cli.Result cli = Cli.inDir(dir, Map.of(), "tls", "cert", "create", "-cli");

        assertEquals(0, client.code(), client.err());
        assertEquals("", client.err(), "no warning for a client certificate");
        assertEquals("==> Client Certificate saved to us-client-nomad.pem", client.outLines().get(1));
        assertEquals(0, cli.code(), cli.err());
        assertEquals(List.of("==> Using CA file nomad-agent-ca.pem and CA key nomad-agent-ca-key.pem",
                "==> Cli Certificate saved to global-cli-nomad.pem",
                "==> CLI Certificate key saved to global-cli-nomad-key.pem"), cli.outLines());
        assertEquals(List.of(List.of(2, "client.us.nomad"), List.of(2, "localhost"), List.of(7, "127.0.0.1")),
                List.copyOf(Pem.certificates(dir.resolve("us-client-nomad.pem")).get(0).getSubjectAlternativeNames()));
        assertEquals(List.of(List.of(2, "cli.global.nomad"), List.of(2, "localhost")),
                List.copyOf(Pem.certificates(dir.resolve("global-cli-nomad.pem")).get(0).getSubjectAlternativeNames()));
    }

    @Test
    void certCreateUsageErrorsAreOneClearLineAndExitOne() throws Exception {
        assertEquals(List.of("Please provide either -server, -client, or -cli"),
                failed(Cli.inDir(dir, Map.of(), "tls", "cert", "create")));
        assertEquals(List.of("Please provide either -server, -client, or -cli"),
                failed(Cli.inDir(dir, Map.of(), "tls", "cert", "create", "-server", "-client")));
        assertEquals(List.of("Please provide the ca"),
                failed(Cli.inDir(dir, Map.of(), "tls", "cert", "create", "-server", "-ca", "")));
        Cli.Result noCa = Cli.inDir(dir, Map.of(), "tls", "cert", "create", "-server");
        assertEquals(List.of("Error reading CA: " + dir.resolve("nomad-agent-ca.pem") + ": no such file"), failed(noCa));
        assertEquals("", noCa.out());
        List<String> badIp = failed(Cli.inDir(dir, Map.of(), "tls", "cert", "create", "-client",
                "-additional-ipaddress", "example.com"));
        assertEquals("Invalid IP address for -additional-ipaddress: \"example.com\"", badIp.get(0));
        assertEquals("For additional help try 'caravan tls cert create -h'", badIp.get(1));
        assertEquals(List.of(), List.of(dir.toFile().list()), "nothing written");
    }

    @Test
    void caCreateUsageErrorsFollowNomad() {
        assertEquals(List.of("Please provide the -name-constraint flag to use a custom domain constraint"),
                failed(Cli.inDir(dir, Map.of(), "tls", "ca", "create", "-domain", "example")));
        assertEquals(List.of("Please provide the -country flag when customizing the CA",
                "For additional help try 'caravan tls ca create -h'"),
                failed(Cli.inDir(dir, Map.of(), "tls", "ca", "create", "-common-name", "Acme CA")));
        assertEquals(List.of("Please provide the -name-constraint flag to use -additional-domain"),
                failed(Cli.inDir(dir, Map.of(), "tls", "ca", "create", "-additional-domain", "example")));
        assertEquals(List.of(), List.of(dir.toFile().list()), "nothing written");
    }

    @Test
    void customDomainNamesTheFilesAndTheCertificates() throws Exception {
        Cli.Result ca = Cli.inDir(dir, Map.of(), "tls", "ca", "create", "-domain", "example", "-name-constraint",
                "-common-name", "Acme CA", "-country", "DE", "-organization", "Acme", "-organizational-unit", "Ops",
                "-days", "10");
        assertEquals(0, ca.code(), ca.err());
        X509Certificate c = Pem.certificates(dir.resolve("example-agent-ca.pem")).get(0);
        assertEquals("CN=Acme CA " + c.getSerialNumber() + ",OU=Ops,O=Acme,C=DE", c.getSubjectX500Principal().getName());
        assertEquals(List.of("example", "localhost", "nomad"), CertificateInfo.of(c).permittedDnsDomains());

        Cli.Result server = Cli.inDir(dir, Map.of(), "tls", "cert", "create", "-server", "-domain", "example",
                "-days", "7");
        assertEquals(0, server.code(), server.err());
        assertTrue(server.out().contains("==> Using CA file example-agent-ca.pem and CA key example-agent-ca-key.pem"));
        CertificateInfo info = CertificateInfo.of(Pem.certificates(dir.resolve("global-server-example.pem")).get(0));
        assertEquals(List.of("server.global.example", "localhost"), info.dnsNames());
        assertEquals(7L * 24 * 3600, info.notAfter().getEpochSecond() - info.notBefore().getEpochSecond());
    }

    @Test
    void certInfoShowsNomadsRowsThenValidityAndUsages() throws Exception {
        Cli.inDir(dir, Map.of(), "tls", "ca", "create");
        Cli.inDir(dir, Map.of(), "tls", "cert", "create", "-server", "-additional-ipaddress", "10.0.0.1");
        X509Certificate c = Pem.certificates(dir.resolve("global-server-nomad.pem")).get(0);
        X509Certificate ca = Pem.certificates(dir.resolve("nomad-agent-ca.pem")).get(0);

        Cli.Result r = Cli.inDir(dir, Map.of(), "tls", "cert", "info", "global-server-nomad.pem");

        assertEquals(0, r.code(), r.err());
        List<String> lines = r.outLines();
        assertEquals(9, lines.size(), r.out());
        assertEquals("Serial Number       " + c.getSerialNumber(), lines.get(0));
        assertEquals("Issuer CN           Nomad Agent CA " + ca.getSerialNumber(), lines.get(1));
        assertEquals("Common Name         CN=server.global.nomad", lines.get(2));
        assertTrue(lines.get(3).matches("Expiry Date         \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d \\+0000 UTC"),
                lines.get(3));
        assertEquals("DNS Names           [server.global.nomad localhost]", lines.get(4));
        assertEquals("IP Addresses        [10.0.0.1 127.0.0.1]", lines.get(5));
        assertTrue(lines.get(6).startsWith("Not Before          "), lines.get(6));
        assertEquals("Key Usage           digital signature, key encipherment", lines.get(7));
        assertEquals("Extended Key Usage  server auth, client auth", lines.get(8));

        Cli.Result caInfo = Cli.inDir(dir, Map.of(), "tls", "ca", "info", "nomad-agent-ca.pem");
        assertEquals(0, caInfo.code(), caInfo.err());
        assertTrue(caInfo.out().contains("Permitted DNS Domains  []"), caInfo.out());
        assertTrue(caInfo.out().contains("Key Usage              digital signature, certificate sign, crl sign"),
                caInfo.out());

        assertEquals(List.of("Error reading certificate file: " + dir.resolve("missing.pem") + ": no such file"),
                failed(Cli.inDir(dir, Map.of(), "tls", "cert", "info", "missing.pem")));
        assertEquals("This command takes one argument: <certificate file>",
                failed(Cli.inDir(dir, Map.of(), "tls", "cert", "info")).get(0));
    }

    @Test
    void tlsAloneListsItsSubcommandsAndFails() {
        Cli.Result r = Cli.run(Map.of(), "tls");

        assertEquals(1, r.code());
        assertTrue(r.err().contains("ca") && r.err().contains("cert"), r.err());
    }

    private static List<String> failed(Cli.Result r) {
        assertEquals(1, r.code(), r.out() + r.err());
        return r.errLines();
    }
}
