package io.caravan.cli.command;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.caravan.cli.Context;
import io.caravan.tls.CaSubject;
import io.caravan.tls.CertificateAuthority;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code caravan tls ca create}: a new CA in {@code <domain>-agent-ca.pem} and {@code <domain>-agent-ca-key.pem} in
 * the working directory, as Nomad's. Existing files are never replaced. One difference: {@code -name-constraint}
 * also works with the default domain (Nomad asks for another {@code -domain}), so the Consul-style
 * {@code -domain nomad -name-constraint -additional-name-constraint x} of existing guides works.
 */
@Command(name = "create", description = "Create a new certificate authority.")
public final class TlsCaCreateCommand extends TlsCommand.Local {
    static final String DEFAULT_DOMAIN = "nomad";

    @Option(names = {"-additional-domain", "--additional-domain", "-additional-name-constraint",
            "--additional-name-constraint"}, paramLabel = "<domain>",
            description = "Another DNS zone the CA may sign names in (with -name-constraint); repeatable.")
    List<String> additionalDomains = new ArrayList<>();

    @Option(names = {"-common-name", "--common-name"}, paramLabel = "<name>",
            description = "Common name of the CA (with the other subject flags). Default: Nomad Agent CA.")
    String commonName = "";

    @Option(names = {"-country", "--country"}, paramLabel = "<code>", description = "Country of the CA. Default: US.")
    String country = "";

    @Option(names = {"-postal-code", "--postal-code"}, paramLabel = "<code>",
            description = "Postal code of the CA. Default: 94105.")
    String postalCode = "";

    @Option(names = {"-province", "--province"}, paramLabel = "<province>",
            description = "Province of the CA. Default: CA.")
    String province = "";

    @Option(names = {"-locality", "--locality"}, paramLabel = "<locality>",
            description = "Locality of the CA. Default: San Francisco.")
    String locality = "";

    @Option(names = {"-street-address", "--street-address"}, paramLabel = "<address>",
            description = "Street address of the CA. Default: 101 Second Street.")
    String streetAddress = "";

    @Option(names = {"-organization", "--organization"}, paramLabel = "<name>",
            description = "Organization of the CA. Default: HashiCorp Inc.")
    String organization = "";

    @Option(names = {"-organizational-unit", "--organizational-unit"}, paramLabel = "<name>",
            description = "Organizational unit of the CA. Default: Nomad.")
    String organizationalUnit = "";

    @Option(names = {"-days", "--days"}, paramLabel = "<days>",
            description = "Days the CA is valid for from now. Default: 1825 (5 years).")
    int days = 1825;

    @Option(names = {"-domain", "--domain"}, paramLabel = "<domain>",
            description = "Domain of the cluster; names the files and, with -name-constraint, is a permitted zone. "
                    + "Default: nomad.")
    String domain = DEFAULT_DOMAIN;

    @Option(names = {"-name-constraint", "--name-constraint"}, arity = "0..1", fallbackValue = "true",
            converter = GoBool.class, paramLabel = "<bool>",
            description = "Let the CA sign only names in -domain, localhost, nomad and each -additional-domain.")
    boolean nameConstraint;

    public TlsCaCreateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected int run() throws UsageException {
        CaSubject subject = subject();
        if (domain.isBlank()) {
            throw new UsageException("Please provide a non-empty -domain");
        }
        if (!domain.equals(DEFAULT_DOMAIN) && !nameConstraint) {
            return fail("Please provide the -name-constraint flag to use a custom domain constraint");
        }
        if (!additionalDomains.isEmpty() && !nameConstraint) {
            return fail("Please provide the -name-constraint flag to use -additional-domain");
        }
        if (days < 1) {
            throw new UsageException("Please provide a positive number of -days, not " + days);
        }
        String certName = domain + "-agent-ca.pem";
        String keyName = domain + "-agent-ca-key.pem";
        Path certFile = ctx.file(certName);
        Path keyFile = ctx.file(keyName);
        if (Files.exists(certFile)) {
            return fail("CA certificate file '" + certName + "' already exists");
        }
        if (Files.exists(keyFile)) {
            return fail("CA key file '" + keyName + "' already exists");
        }
        List<String> permitted = List.of();
        if (nameConstraint) {
            Set<String> zones = new LinkedHashSet<>(List.of(domain, "localhost", DEFAULT_DOMAIN));
            additionalDomains.stream().map(String::strip).filter(d -> !d.isEmpty()).forEach(zones::add);
            permitted = List.copyOf(zones);
        }
        CertificateAuthority ca = CertificateAuthority.create(subject, days, permitted);
        try {
            ca.credential().write(certFile, keyFile);
        } catch (IOException e) {
            return fail("Error writing the CA: " + describe(e));
        }
        ctx.out().println("==> CA certificate saved to: " + certName);
        ctx.out().println("==> CA certificate key saved to: " + keyName);
        return 0;
    }

    /** Nomad's subject unless a subject flag is given; then -common-name, -country, -organization(-al-unit) are due. */
    private CaSubject subject() throws UsageException {
        boolean custom = !(commonName + country + postalCode + province + locality + streetAddress + organization
                + organizationalUnit).isEmpty();
        if (!custom) {
            return CaSubject.NOMAD;
        }
        require(commonName, "-common-name");
        require(country, "-country");
        require(organization, "-organization");
        require(organizationalUnit, "-organizational-unit");
        return new CaSubject(commonName, country, postalCode, province, locality, streetAddress, organization,
                organizationalUnit);
    }

    private static void require(String value, String flag) throws UsageException {
        if (value.isBlank()) {
            throw new UsageException("Please provide the " + flag + " flag when customizing the CA");
        }
    }
}
