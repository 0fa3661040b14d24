package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan operator raft}: only groups its subcommands. */
@Command(name = "raft", description = "Inspect and change the Raft peer set of the servers.",
        synopsisSubcommandLabel = "<subcommand>")
public final class OperatorRaftCommand extends GroupCommand {
}
