package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan service}: only groups its subcommands. */
@Command(name = "service", description = "Interact with registered services.",
        synopsisSubcommandLabel = "<subcommand>")
public final class ServiceCommand extends GroupCommand {
}
