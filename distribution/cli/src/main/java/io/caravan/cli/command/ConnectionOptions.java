package io.caravan.cli.command;

import io.caravan.cli.Context;
import io.caravan.cli.http.Connection;
import picocli.CommandLine.Option;

/**
 * Nomad's HTTP API options. Single-dash names as Nomad spells them; the double-dash forms are accepted too,
 * as Go's flag package does. A flag beats {@code CARAVAN_*}, which beats {@code NOMAD_*}.
 */
public final class ConnectionOptions {

    @Option(names = {"-address", "--address"}, paramLabel = "<addr>",
            description = "The address of the Caravan agent. Overrides CARAVAN_ADDR and NOMAD_ADDR. "
                    + "Default: " + Connection.DEFAULT_ADDRESS + ".")
    String address;

    @Option(names = {"-token", "--token"}, paramLabel = "<secret>",
            description = "The SecretID of an ACL token, sent as X-Nomad-Token. Overrides CARAVAN_TOKEN and NOMAD_TOKEN.")
    String token;

    @Option(names = {"-region", "--region"}, paramLabel = "<region>",
            description = "The region to forward requests to. Overrides CARAVAN_REGION and NOMAD_REGION.")
    String region;

    public Connection resolve(Context ctx) {
        return new Connection(
                first(address, ctx.env("CARAVAN_ADDR", "NOMAD_ADDR")),
                first(token, ctx.env("CARAVAN_TOKEN", "NOMAD_TOKEN")),
                first(region, ctx.env("CARAVAN_REGION", "NOMAD_REGION")));
    }

    private static String first(String flag, String env) {
        return flag != null && !flag.isBlank() ? flag : env;
    }
}
