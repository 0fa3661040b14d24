package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan node intro}: only groups its subcommands. */
@Command(name = "intro", description = "Manage client introduction tokens.", synopsisSubcommandLabel = "<subcommand>")
public final class NodeIntroCommand extends GroupCommand {
}
