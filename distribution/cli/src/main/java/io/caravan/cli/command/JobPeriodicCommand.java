package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan job periodic}: only groups its subcommands. */
@Command(name = "periodic", description = "Interact with periodic jobs.", synopsisSubcommandLabel = "<subcommand>")
public final class JobPeriodicCommand extends GroupCommand {
}
