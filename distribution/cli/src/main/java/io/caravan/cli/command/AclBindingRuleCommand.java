package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan acl binding-rule}: only groups its subcommands. */
@Command(name = "binding-rule", description = "Interact with ACL binding rules.",
        synopsisSubcommandLabel = "<subcommand>")
public final class AclBindingRuleCommand extends GroupCommand {
}
