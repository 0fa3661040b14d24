package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan config}: only groups its subcommands. */
@Command(name = "config", description = "Interact with agent configuration.",
        synopsisSubcommandLabel = "<subcommand>")
public final class ConfigCommand extends GroupCommand {
}
