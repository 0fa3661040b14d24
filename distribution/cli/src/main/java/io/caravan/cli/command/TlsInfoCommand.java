package io.caravan.cli.command;

import java.security.cert.X509Certificate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

import io.caravan.cli.Context;
import io.caravan.cli.format.Table;
import io.caravan.tls.CertificateInfo;
import io.caravan.tls.Pem;
import io.caravan.tls.TlsException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan tls cert info FILE} and {@code caravan tls ca info FILE}: Nomad's rows (serial number, issuer,
 * subject, expiry, then DNS names and IP addresses, or the CA's permitted DNS domains), followed by the validity
 * start and the key usages. Times are in UTC as Go prints them.
 */
public abstract class TlsInfoCommand extends TlsCommand.Local {
    private static final DateTimeFormatter GO_TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss '+0000 UTC'")
            .withZone(ZoneOffset.UTC);

    @Parameters(arity = "0..1", paramLabel = "FILE", description = "A PEM certificate file.")
    String file;

    TlsInfoCommand(Context ctx) {
        super(ctx);
    }

    /** Nomad's wording when the file cannot be read. */
    protected abstract String readError();

    protected abstract void addRows(List<List<String>> rows, CertificateInfo info);

    @Override
    protected int run() throws UsageException {
        if (file == null || file.isBlank()) {
            throw new UsageException("This command takes one argument: <certificate file>");
        }
        X509Certificate certificate;
        try {
            certificate = Pem.certificates(ctx.file(file)).get(0);
        } catch (TlsException e) {
            return fail(readError() + ": " + e.getMessage());
        }
        CertificateInfo info = CertificateInfo.of(certificate);
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("Serial Number", info.serialNumber().toString()));
        rows.add(List.of("Issuer CN", info.issuerCommonName()));
        rows.add(List.of("Common Name", info.subject()));
        rows.add(List.of("Expiry Date", GO_TIME.format(info.notAfter())));
        addRows(rows, info);
        rows.add(List.of("Not Before", GO_TIME.format(info.notBefore())));
        rows.add(List.of("Key Usage", String.join(", ", info.keyUsages())));
        rows.add(List.of("Extended Key Usage", String.join(", ", info.extendedKeyUsages())));
        Table.format(rows, "  ").forEach(ctx.out()::println);
        return 0;
    }

    /** Go prints a list of strings as {@code [a b c]}. */
    static String goList(List<String> values) {
        return "[" + String.join(" ", values) + "]";
    }

    /** {@code caravan tls cert info}. */
    @Command(name = "info", description = "Show information about a certificate.")
    public static final class Cert extends TlsInfoCommand {
        public Cert(Context ctx) {
            super(ctx);
        }

        @Override
        protected String readError() {
            return "Error reading certificate file";
        }

        @Override
        protected void addRows(List<List<String>> rows, CertificateInfo info) {
            rows.add(List.of("DNS Names", goList(info.dnsNames())));
            rows.add(List.of("IP Addresses", goList(info.ipAddresses())));
        }
    }

    /** {@code caravan tls ca info}. */
    @Command(name = "info", description = "Show information about a CA certificate.")
    public static final class Ca extends TlsInfoCommand {
        public Ca(Context ctx) {
            super(ctx);
        }

        @Override
        protected String readError() {
            return "Error reading CA file";
        }

        @Override
        protected void addRows(List<List<String>> rows, CertificateInfo info) {
            rows.add(List.of("Permitted DNS Domains", goList(info.permittedDnsDomains())));
        }
    }
}
