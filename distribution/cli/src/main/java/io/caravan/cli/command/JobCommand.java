package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan job}: only groups its subcommands. */
@Command(name = "job", description = "Interact with jobs.", synopsisSubcommandLabel = "<subcommand>")
public final class JobCommand extends GroupCommand {
}
