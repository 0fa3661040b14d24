package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan operator}: only groups its subcommands. */
@Command(name = "operator", description = "Tools for operators of the cluster.",
        synopsisSubcommandLabel = "<subcommand>")
public final class OperatorCommand extends GroupCommand {
}
