package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan acl role}: only groups its subcommands. */
@Command(name = "role", description = "Interact with ACL roles.", synopsisSubcommandLabel = "<subcommand>")
public final class AclRoleCommand extends GroupCommand {
}
