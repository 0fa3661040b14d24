package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan system reconcile}: only groups its subcommands. */
@Command(name = "reconcile", description = "Reconcile system state.", synopsisSubcommandLabel = "<subcommand>")
public final class SystemReconcileCommand extends GroupCommand {
}
