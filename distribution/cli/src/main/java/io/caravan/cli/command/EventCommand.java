package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan event}: only groups its subcommands (Caravan's addition: Nomad's CLI has no event command). */
@Command(name = "event", description = "Interact with the event stream.", synopsisSubcommandLabel = "<subcommand>")
public final class EventCommand extends GroupCommand {
}
