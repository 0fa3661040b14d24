package io.caravan.cli.command;

import java.nio.file.Path;

import io.caravan.cli.Context;
import io.caravan.cli.http.ClientTls;
import io.caravan.cli.http.Connection;
import picocli.CommandLine.Option;

/**
 * Nomad's HTTP API options. Single-dash names as Nomad spells them; the double-dash forms are accepted too,
 * as Go's flag package does. A flag beats {@code CARAVAN_*}, which beats {@code NOMAD_*}. The TLS options apply to
 * {@code https://} addresses; relative file names are relative to the working directory.
 */
public final class ConnectionOptions {

    @Option(names = {"-address", "--address"}, paramLabel = "<addr>",
            description = "The address of the Caravan agent; https:// for TLS. Overrides CARAVAN_ADDR and NOMAD_ADDR. "
                    + "Default: " + Connection.DEFAULT_ADDRESS + ".")
    String address;

    @Option(names = {"-token", "--token"}, paramLabel = "<secret>",
            description = "The SecretID of an ACL token, sent as X-Nomad-Token. Overrides CARAVAN_TOKEN and NOMAD_TOKEN.")
    String token;

    @Option(names = {"-region", "--region"}, paramLabel = "<region>",
            description = "The region to forward requests to. Overrides CARAVAN_REGION and NOMAD_REGION.")
    String region;

    @Option(names = {"-namespace", "--namespace"}, paramLabel = "<namespace>",
            description = "The target namespace for queries and actions bound to a namespace. Overrides "
                    + "CARAVAN_NAMESPACE and NOMAD_NAMESPACE. Default: default.")
    String namespace;

    @Option(names = {"-ca-cert", "--ca-cert"}, paramLabel = "<file>",
            description = "PEM file of the CA that signed the agent's certificate. Overrides CARAVAN_CACERT and "
                    + "NOMAD_CACERT.")
    String caCert;

    @Option(names = {"-ca-path", "--ca-path"}, paramLabel = "<dir>",
            description = "Directory of PEM CA certificates (when -ca-cert is not given). Overrides CARAVAN_CAPATH "
                    + "and NOMAD_CAPATH.")
    String caPath;

    @Option(names = {"-client-cert", "--client-cert"}, paramLabel = "<file>",
            description = "PEM certificate presented to the agent (needs -client-key). Overrides CARAVAN_CLIENT_CERT "
                    + "and NOMAD_CLIENT_CERT.")
    String clientCert;

    @Option(names = {"-client-key", "--client-key"}, paramLabel = "<file>",
            description = "PEM private key of -client-cert. Overrides CARAVAN_CLIENT_KEY and NOMAD_CLIENT_KEY.")
    String clientKey;

    @Option(names = {"-tls-server-name", "--tls-server-name"}, paramLabel = "<name>",
            description = "The name the agent's certificate must carry instead of the address's host, e.g. "
                    + "server.global.nomad. Overrides CARAVAN_TLS_SERVER_NAME and NOMAD_TLS_SERVER_NAME.")
    String tlsServerName;

    @Option(names = {"-tls-skip-verify", "--tls-skip-verify"}, arity = "0..1", fallbackValue = "true",
            converter = GoBool.class, paramLabel = "<bool>",
            description = "Do not verify the agent's certificate (insecure). Overrides CARAVAN_SKIP_VERIFY and "
                    + "NOMAD_SKIP_VERIFY.")
    Boolean tlsSkipVerify;

    public Connection resolve(Context ctx) {
        String skip = setting(ctx, null, "SKIP_VERIFY");
        // As Nomad: a value that is not a boolean leaves the check on.
        boolean skipVerify = tlsSkipVerify != null ? tlsSkipVerify
                : skip != null && Boolean.TRUE.equals(GoBool.parse(skip));
        ClientTls tls = new ClientTls(file(ctx, setting(ctx, caCert, "CACERT")),
                file(ctx, setting(ctx, caPath, "CAPATH")), file(ctx, setting(ctx, clientCert, "CLIENT_CERT")),
                file(ctx, setting(ctx, clientKey, "CLIENT_KEY")), setting(ctx, tlsServerName, "TLS_SERVER_NAME"),
                skipVerify);
        return new Connection(setting(ctx, address, "ADDR"), setting(ctx, token, "TOKEN"),
                setting(ctx, region, "REGION"), tls, setting(ctx, namespace, "NAMESPACE"));
    }

    /** The namespace a command acts in: the flag, else the environment, else {@code default}. */
    public String namespace(Context ctx) {
        String chosen = setting(ctx, namespace, "NAMESPACE");
        return chosen == null ? "default" : chosen;
    }

    /** The flag, else {@code CARAVAN_<name>}, else {@code NOMAD_<name>}; blank counts as unset. */
    private static String setting(Context ctx, String flag, String name) {
        return flag != null && !flag.isBlank() ? flag.strip() : ctx.env("CARAVAN_" + name, "NOMAD_" + name);
    }

    private static Path file(Context ctx, String name) {
        return name == null ? null : ctx.file(name);
    }
}
