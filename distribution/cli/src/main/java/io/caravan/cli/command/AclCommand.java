package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan acl}: only groups its subcommands. */
@Command(name = "acl", description = "Interact with ACL policies, tokens and roles.", synopsisSubcommandLabel = "<subcommand>")
public final class AclCommand extends GroupCommand {
}
