package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan operator scheduler}: only groups its subcommands. */
@Command(name = "scheduler", description = "Read and change the scheduler configuration.",
        synopsisSubcommandLabel = "<subcommand>")
public final class OperatorSchedulerCommand extends GroupCommand {
}
