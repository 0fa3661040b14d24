package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan job tag}: only groups its subcommands. */
@Command(name = "tag", description = "Manage job version tags.", synopsisSubcommandLabel = "<subcommand>")
public final class JobTagCommand extends GroupCommand {
}
