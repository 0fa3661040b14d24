package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan acl policy}: only groups its subcommands. */
@Command(name = "policy", description = "Interact with ACL policies.", synopsisSubcommandLabel = "<subcommand>")
public final class AclPolicyCommand extends GroupCommand {
}
