package io.caravan.cli.command;

import picocli.CommandLine.Command;

/** {@code caravan acl auth-method}: only groups its subcommands. */
@Command(name = "auth-method", description = "Interact with ACL auth methods.",
        synopsisSubcommandLabel = "<subcommand>")
public final class AclAuthMethodCommand extends GroupCommand {
}
