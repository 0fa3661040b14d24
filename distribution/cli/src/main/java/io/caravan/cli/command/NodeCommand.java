package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan node}: only groups its subcommands. */
@Command(name = "node", description = "Interact with client nodes.", synopsisSubcommandLabel = "<subcommand>")
public final class NodeCommand extends GroupCommand {
}
