package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan acl token}: only groups its subcommands. */
@Command(name = "token", description = "Interact with ACL tokens.", synopsisSubcommandLabel = "<subcommand>")
public final class AclTokenCommand extends GroupCommand {
}
