package io.caravan.cli.command;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.util.concurrent.Callable;

import io.caravan.cli.Context;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code caravan tls}: groups Nomad's certificate tooling ({@code tls ca create}, {@code tls cert create}, ...); its
 * nested {@link Local} is the base of those commands, which work on local files and never call an agent.
 */
@Command(name = "tls", description = "Create a CA and certificates for TLS between agents and the CLI.",
        synopsisSubcommandLabel = "<subcommand>")
public final class TlsCommand extends GroupCommand {

    /** {@code caravan tls ca}. */
    @Command(name = "ca", description = "Create or inspect the certificate authority.",
            synopsisSubcommandLabel = "<subcommand>")
    public static final class Ca extends GroupCommand {
    }

    /** {@code caravan tls cert}. */
    @Command(name = "cert", description = "Create or inspect agent and CLI certificates.",
            synopsisSubcommandLabel = "<subcommand>")
    public static final class Cert extends GroupCommand {
    }

    /** A tls subcommand: usage errors as Nomad prints them (the problem, then the pointer to -h), exit 1. */
    abstract static class Local implements Callable<Integer> {
        @Mixin
        HelpOption help;

        @Spec
        CommandSpec spec;

        protected final Context ctx;

        Local(Context ctx) {
            this.ctx = ctx;
        }

        @Override
        public final Integer call() {
            try {
                return run();
            } catch (UsageException e) {
                return e.report(ctx.err(), spec);
            }
        }

        protected abstract int run() throws UsageException;

        /** Prints {@code message} on stderr and returns 1: a failure without the pointer to -h, as Nomad's. */
        protected int fail(String message) {
            ctx.err().println(message);
            return 1;
        }

        /** Go-like: the file, then what went wrong with it. */
        static String describe(IOException e) {
            if (e instanceof AccessDeniedException) {
                return e.getMessage() + ": permission denied";
            }
            if (e instanceof FileAlreadyExistsException) {
                return e.getMessage() + ": file exists";
            }
            if (e instanceof NoSuchFileException) {
                return e.getMessage() + ": no such file or directory";
            }
            return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
    }
}
