package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan alloc}: only groups its subcommands. */
@Command(name = "alloc", description = "Interact with allocations.", synopsisSubcommandLabel = "<subcommand>")
public final class AllocCommand extends GroupCommand {
}
