package io.caravan.cli.command;

import java.util.concurrent.Callable;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A command that only groups subcommands ({@code server}, {@code config}): alone, it prints usage and fails. */
abstract class GroupCommand implements Callable<Integer> {

    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    /** No subcommand given: print the usage to stderr and fail, as Nomad does. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 1;
    }
}
