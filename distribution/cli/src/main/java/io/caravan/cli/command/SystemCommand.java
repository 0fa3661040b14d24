package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan system}: only groups its subcommands. */
@Command(name = "system", description = "Interact with the system API.", synopsisSubcommandLabel = "<subcommand>")
public final class SystemCommand extends GroupCommand {
}
