package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan var}: only groups its subcommands. */
@Command(name = "var", description = "Interact with variables.", synopsisSubcommandLabel = "<subcommand>")
public final class VarCommand extends GroupCommand {
}
