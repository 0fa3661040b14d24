package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan eval}: only groups its subcommands. */
@Command(name = "eval", description = "Interact with evaluations.", synopsisSubcommandLabel = "<subcommand>")
public final class EvalCommand extends GroupCommand {
}
