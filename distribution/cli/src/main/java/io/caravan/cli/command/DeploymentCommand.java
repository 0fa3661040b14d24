package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan deployment}: only groups its subcommands. */
@Command(name = "deployment", description = "Interact with deployments.", synopsisSubcommandLabel = "<subcommand>")
public final class DeploymentCommand extends GroupCommand {
}
