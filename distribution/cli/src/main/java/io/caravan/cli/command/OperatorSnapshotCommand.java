package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan operator snapshot}: only groups its subcommands. */
@Command(name = "snapshot", description = "Save, restore and inspect snapshots of the servers' state.",
        synopsisSubcommandLabel = "<subcommand>")
public final class OperatorSnapshotCommand extends GroupCommand {
}
