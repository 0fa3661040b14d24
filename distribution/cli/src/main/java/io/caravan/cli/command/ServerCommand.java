package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan server}: only groups its subcommands. */
@Command(name = "server", description = "Interact with servers.", synopsisSubcommandLabel = "<subcommand>")
public final class ServerCommand extends GroupCommand {
}
