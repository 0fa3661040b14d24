package io.caravan.cli.command;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import io.caravan.cli.Context;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code caravan var init [-out hcl|json] [-quiet] [FILE]}: writes an example variable specification
 * ({@code spec.nv.hcl} or {@code spec.nv.json} by default) to start from; never overwrites a file.
 */
@Command(name = "init", description = "Create an example variable specification file.")
public final class VarInitCommand implements Callable<Integer> {
    static final String HCL_FILE = "spec.nv.hcl";
    static final String JSON_FILE = "spec.nv.json";

    static final String HCL_SPEC = """
            # The variable's path. It may be left out here and given on the command line instead
            # (caravan var put <path> @spec.nv.hcl); the command line wins.
            # path = "path/to/variable"

            # The namespace to write to; the -namespace flag of "var put" overrides it.
            # namespace = "default"

            # Only the items are required: the key/value pairs the variable holds. They are
            # written and read as one unit. Keys without dots are easier to use in templates.
            items {
              key1 = "value 1"
              key2 = "value 2"
            }
            """;

    static final String JSON_SPEC = """
            {
              "Namespace": "default",
              "Path": "path/to/variable",
              "Items": {
                "key1": "value 1",
                "key2": "value 2"
              }
            }
            """;

    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    @Option(names = {"-out", "--out"}, paramLabel = "hcl|json", defaultValue = "hcl",
            description = "Format of the example. Default: hcl.")
    String out;

    @Option(names = {"-quiet", "--quiet"}, description = "Print nothing on success.")
    boolean quiet;

    @Parameters(arity = "0..*", paramLabel = "FILE", description = "Where to write the example.")
    List<String> args = List.of();

    private final Context ctx;

    public VarInitCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        try {
            if (args.size() > 1) {
                throw new UsageException("This command takes no arguments or one: <filename>");
            }
            if (!out.equals("hcl") && !out.equals("json")) {
                throw new UsageException("Invalid value for \"-out\"; valid values are [hcl, json]");
            }
        } catch (UsageException e) {
            return e.report(ctx.err(), spec);
        }
        boolean json = out.equals("json");
        String name = args.isEmpty() ? json ? JSON_FILE : HCL_FILE : args.get(0);
        Path file = ctx.file(name);
        if (Files.exists(file)) {
            ctx.err().println("File \"" + name + "\" already exists");
            return 1;
        }
        try {
            Files.writeString(file, json ? JSON_SPEC : HCL_SPEC);
        } catch (IOException e) {
            ctx.err().println("Failed to write \"" + name + "\": " + InputFile.reason(e));
            return 1;
        }
        if (!quiet) {
            ctx.out().println("Example variable specification written to " + name);
        }
        return 0;
    }
}
