package io.caravan.cli.command;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.jobspec.JobspecParser;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan job init [-short] [-json] [FILE]}: writes an example job, as Nomad's does, to
 * {@code example.nomad.hcl} ({@code example.nomad.json} with {@code -json}) unless a name is given. The example runs
 * as written on {@code caravan agent -dev}: a {@code raw_exec} task (Caravan has no docker driver) that logs a line
 * every ten seconds. Never overwrites a file.
 */
@Command(name = "init", description = "Create an example job file.")
public final class JobInitCommand implements Callable<Integer> {
    static final String DEFAULT_HCL = "example.nomad.hcl";
    static final String DEFAULT_JSON = "example.nomad.json";

    /** The example without comments; {@link #LONG} is this with every line explained. */
    static final String SHORT = """
            job "example" {
              datacenters = ["*"]

              group "web" {
                count = 1

                task "server" {
                  driver = "raw_exec"

                  config {
                    command = "/bin/sh"
                    args    = ["-c", "while true; do echo \\"hello from $NOMAD_ALLOC_ID\\"; sleep 10; done"]
                  }

                  resources {
                    cpu    = 100
                    memory = 64
                  }
                }
              }
            }
            """;

    static final String LONG = """
            # An example job: run it with `caravan job run example.nomad.hcl` (a `caravan agent -dev` can run it as
            # written), see it with `caravan job status example`, and stop it with `caravan job stop example`.
            # Check a change first with `caravan job plan example.nomad.hcl`.
            job "example" {
              # The datacenters whose clients may run this job; "*" is every one.
              datacenters = ["*"]

              # A service runs until it is stopped (batch jobs run to completion).
              type = "service"

              # A group is what is placed on one client: its tasks run side by side there.
              group "web" {
                # How many copies of the group to run.
                count = 1

                # How the client restarts a failed task before giving up on it.
                restart {
                  attempts = 2
                  interval = "30m"
                  delay    = "15s"
                  mode     = "fail"
                }

                task "server" {
                  # raw_exec runs a command as the client's user, without isolation; exec and java exist too.
                  driver = "raw_exec"

                  config {
                    command = "/bin/sh"
                    args    = ["-c", "while true; do echo \\"hello from $NOMAD_ALLOC_ID\\"; sleep 10; done"]
                  }

                  # What the scheduler reserves on the client: CPU in MHz, memory in MB.
                  resources {
                    cpu    = 100
                    memory = 64
                  }
                }
              }
            }
            """;

    @Mixin
    HelpOption help;

    @Option(names = {"-short", "--short"}, description = "Write the example without its explanatory comments.")
    boolean shortForm;

    @Option(names = {"-json", "--json"}, description = "Write the example as the API's JSON job.")
    boolean json;

    @Parameters(arity = "0..1", paramLabel = "FILE", description = "Where to write it (default: " + DEFAULT_HCL + ").")
    List<String> args = List.of();

    private final Context ctx;

    public JobInitCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        String name = args.isEmpty() ? (json ? DEFAULT_JSON : DEFAULT_HCL) : args.get(0);
        Path file = ctx.file(name);
        if (Files.exists(file)) {
            ctx.err().println("Job '" + name + "' already exists");
            return 1;
        }
        String content = shortForm ? SHORT : LONG;
        if (json) {
            // Nomad's -json writes the API's job: the example, parsed, so the two forms cannot drift apart.
            ObjectNode wrapped = NomadJson.mapper().createObjectNode();
            wrapped.set("Job", JobspecParser.parse(SHORT, DEFAULT_HCL).job());
            content = Json.indent(wrapped) + "\n";
        }
        try {
            Files.writeString(file, content);
        } catch (IOException e) {
            ctx.err().println("Failed to write '" + name + "': " + InputFile.reason(e));
            return 1;
        }
        ctx.out().println("Example job file written to " + name);
        return 0;
    }
}
