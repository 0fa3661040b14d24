package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan operator root}: only groups its subcommands. */
@Command(name = "root", description = "Manage the servers' root keys.", synopsisSubcommandLabel = "<subcommand>")
public final class OperatorRootCommand extends GroupCommand {
}
