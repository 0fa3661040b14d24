package io.caravan.cli.command;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import io.caravan.cli.Context;
import io.caravan.tls.AgentRole;
import io.caravan.tls.CertificateAuthority;
import io.caravan.tls.Credential;
import io.caravan.tls.TlsException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code caravan tls cert create -server|-client|-cli}: a key and a certificate signed by the CA, written to
 * {@code <region>-<role>-<domain>.pem} and {@code <region>-<role>-<domain>-key.pem} in the working directory, as
 * Nomad's. Existing files are never replaced. {@code -cluster-region} (Nomad) and {@code -dc} (Consul) are
 * aliases of {@code -region}, which defaults to {@code CARAVAN_REGION}, {@code NOMAD_REGION}, then global.
 */
@Command(name = "create", description = "Create a new certificate for a server, a client or the CLI.")
public final class TlsCertCreateCommand extends TlsCommand.Local {
    private static final String DOMAIN_PLACEHOLDER = "#DOMAIN#";
    private static final String OCTET = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
    private static final Pattern IPV4 = Pattern.compile(OCTET + "(\\." + OCTET + "){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

    @Option(names = {"-additional-dnsname", "--additional-dnsname"}, paramLabel = "<name>",
            description = "Another DNS name for the certificate; localhost is always included. Repeatable.")
    List<String> dnsNames = new ArrayList<>();

    @Option(names = {"-additional-ipaddress", "--additional-ipaddress"}, paramLabel = "<ip>",
            description = "Another IP address for the certificate; 127.0.0.1 is always included (not for -cli). "
                    + "Repeatable.")
    List<String> ipAddresses = new ArrayList<>();

    @Option(names = {"-ca", "--ca"}, paramLabel = "<file>",
            description = "The CA certificate. Default: <domain>-agent-ca.pem.")
    String ca = DOMAIN_PLACEHOLDER + "-agent-ca.pem";

    @Option(names = {"-key", "--key"}, paramLabel = "<file>",
            description = "The CA's private key. Default: <domain>-agent-ca-key.pem.")
    String key = DOMAIN_PLACEHOLDER + "-agent-ca-key.pem";

    @Option(names = {"-server", "--server"}, description = "Create a server certificate.")
    boolean server;

    @Option(names = {"-client", "--client"}, description = "Create a client certificate.")
    boolean client;

    @Option(names = {"-cli", "--cli"}, description = "Create a certificate for the CLI.")
    boolean cli;

    @Option(names = {"-days", "--days"}, paramLabel = "<days>",
            description = "Days the certificate is valid for from now. Default: 365.")
    int days = 365;

    @Option(names = {"-domain", "--domain"}, paramLabel = "<domain>", description = "Domain of the cluster. Default: nomad.")
    String domain = TlsCaCreateCommand.DEFAULT_DOMAIN;

    @Option(names = {"-region", "--region", "-cluster-region", "--cluster-region", "-dc", "--dc"},
            paramLabel = "<region>", description = "Region of the agent. Default: CARAVAN_REGION, NOMAD_REGION, global.")
    String region;

    public TlsCertCreateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected int run() throws UsageException {
        if (ca.isEmpty()) {
            return fail("Please provide the ca");
        }
        if (key.isEmpty()) {
            return fail("Please provide the key");
        }
        if ((server ? 1 : 0) + (client ? 1 : 0) + (cli ? 1 : 0) != 1) {
            return fail("Please provide either -server, -client, or -cli");
        }
        if (days < 1) {
            throw new UsageException("Please provide a positive number of -days, not " + days);
        }
        AgentRole role = server ? AgentRole.SERVER : client ? AgentRole.CLIENT : AgentRole.CLI;
        List<String> names = dnsNames.stream().map(String::strip).filter(n -> !n.isEmpty()).toList();
        List<InetAddress> addresses = new ArrayList<>();
        for (String ip : ipAddresses) {
            if (!ip.isBlank()) {
                addresses.add(ipLiteral(ip.strip()));
            }
        }
        String regionName = region != null && !region.isBlank() ? region.strip()
                : ctx.env("CARAVAN_REGION", "NOMAD_REGION");
        if (regionName == null) {
            regionName = "global";
        }

        String prefix = role.filePrefix(regionName, domain);
        String certName = prefix + ".pem";
        String keyName = prefix + "-key.pem";
        Path certFile = ctx.file(certName);
        Path keyFile = ctx.file(keyName);
        if (Files.exists(certFile)) {
            return fail("Certificate file '" + certName + "' already exists");
        }
        if (Files.exists(keyFile)) {
            return fail("Key file '" + keyName + "' already exists");
        }

        String caName = ca.replace(DOMAIN_PLACEHOLDER, domain);
        String caKeyName = key.replace(DOMAIN_PLACEHOLDER, domain);
        CertificateAuthority authority;
        try {
            authority = CertificateAuthority.load(ctx.file(caName), ctx.file(caKeyName));
        } catch (TlsException e) {
            boolean keyAtFault = ctx.file(caKeyName).equals(e.file());
            return fail((keyAtFault ? "Error reading CA key: " : "Error reading CA: ") + e.getMessage());
        }
        if (server) {
            ctx.err().println("""
                    ==> WARNING: A server certificate lets its holder act as a server: it can read all of the
                        cluster's state, root keys and ACL tokens included. Give it only to server nodes, and
                        guard it as carefully as the CA's key.""");
        }
        ctx.out().println("==> Using CA file " + caName + " and CA key " + caKeyName);

        Credential issued;
        try {
            issued = authority.issue(role.spec(regionName, domain, names, addresses, days));
        } catch (IllegalArgumentException e) {
            return fail(e.getMessage());
        }
        try {
            issued.write(certFile, keyFile);
        } catch (IOException e) {
            return fail("Error writing the certificate: " + describe(e));
        }
        // Nomad's lines, its capitalisation included.
        String what = switch (role) {
            case SERVER -> "Server Certificate";
            case CLIENT -> "Client Certificate";
            case CLI -> "Cli Certificate";
        };
        ctx.out().println("==> " + what + " saved to " + certName);
        ctx.out().println("==> " + (role == AgentRole.CLI ? "CLI Certificate" : what) + " key saved to " + keyName);
        return 0;
    }

    /** An IP address as written, never resolved as a host name. */
    private static InetAddress ipLiteral(String text) throws UsageException {
        // Only what looks like a dotted quad or an IPv6 literal reaches getByName, which parses those without DNS.
        if (IPV4.matcher(text).matches() || IPV6.matcher(text).matches()) {
            try {
                return InetAddress.getByName(text);
            } catch (UnknownHostException e) {
                // Falls through to the usage error.
            }
        }
        throw new UsageException("Invalid IP address for -additional-ipaddress: \"" + text + "\"");
    }
}
