package io.caravan.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.format.Table;
import picocli.CommandLine.Command;

/** {@code caravan operator root keyring}: only groups its subcommands; also prints key tables for them. */
@Command(name = "keyring", description = "Manage the root keys that sign identities and encrypt data.",
        synopsisSubcommandLabel = "<subcommand>")
public final class OperatorRootKeyringCommand extends GroupCommand {
    static final String KEYS = "/v1/operator/keyring/keys";

    /** Nomad's key table: Key (8 characters unless verbose), State, Create Time. */
    static void print(Context ctx, Iterable<JsonNode> keys, boolean verbose) {
        Table table = new Table("Key", "State", "Create Time");
        for (JsonNode k : keys) {
            String id = Json.text(k.get("KeyID"));
            table.row(verbose || id.length() <= 8 ? id : id.substring(0, 8), Json.text(k.get("State")),
                    Nomad.date(k.path("CreateTime").asLong(), ctx.zone()));
        }
        table.print(ctx.out());
    }
}
