package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan operator autopilot}: only groups its subcommands. */
@Command(name = "autopilot", description = "Read and change autopilot's configuration; show the servers' health.",
        synopsisSubcommandLabel = "<subcommand>")
public final class OperatorAutopilotCommand extends GroupCommand {
}
