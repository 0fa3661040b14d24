package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan namespace}: only groups its subcommands. */
@Command(name = "namespace", description = "Interact with namespaces.", synopsisSubcommandLabel = "<subcommand>")
public final class NamespaceCommand extends GroupCommand {
}
