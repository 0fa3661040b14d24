package io.caravan.cli.command;

import java.io.PrintWriter;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** Flags or arguments that do not fit together; printed with a pointer to the command's help, exit 1. */
final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }

    /** Prints the problem and "For additional help try 'caravan ... -h'" as Nomad does; returns the exit code. */
    int report(PrintWriter err, CommandSpec spec) {
        err.println(getMessage());
        err.println("For additional help try '" + spec.qualifiedName() + " -h'");
        int declared = spec.exitCodeOnInvalidInput();
        return declared == CommandLine.ExitCode.USAGE ? 1 : declared;
    }
}
