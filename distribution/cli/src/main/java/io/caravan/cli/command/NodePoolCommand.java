package io.caravan.cli.command;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan node pool}: Nomad's node pool commands ({@code list}, {@code info}, {@code apply}, {@code delete},
 * {@code nodes}, {@code jobs}, {@code init}) over {@code /v1/node/pools} and {@code /v1/node/pool/:name}.
 */
@Command(name = "pool", description = "Interact with node pools.", synopsisSubcommandLabel = "<subcommand>")
public final class NodePoolCommand extends GroupCommand {

    /** A subcommand that names one pool. */
    abstract static class OnePool extends HttpCommand {
        @Parameters(arity = "0..*", paramLabel = "<node-pool>", description = "The node pool's name.")
        List<String> args = List.of();

        OnePool(Context ctx) {
            super(ctx);
        }

        String pool() throws UsageException {
            if (args.size() != 1) {
                throw new UsageException("This command takes one argument: <node-pool>");
            }
            return args.get(0);
        }

        String path(String suffix) throws UsageException {
            return "/v1/node/pool/" + Json.pathSegment(pool()) + suffix;
        }
    }

    @Command(name = "list", description = "List node pools.")
    public static final class ListPools extends HttpCommand {
        @Option(names = {"-json", "--json"}, description = "Output the node pools in their JSON format.")
        boolean json;

        public ListPools(Context ctx) {
            super(ctx);
        }

        @Override
        protected String errorPrefix() {
            return "Error querying node pools";
        }

        @Override
        protected int run(ApiClient api) throws ApiException {
            JsonNode pools = api.get("/v1/node/pools");
            if (json) {
                ctx.out().println(Json.indent(pools));
                return 0;
            }
            Table table = new Table("Name", "Description").placeholder(Nomad.NONE);
            pools.forEach(p -> table.row(Json.text(p.get("Name")), Json.text(p.get("Description"))));
            table.print(ctx.out());
            return 0;
        }
    }

    @Command(name = "info", description = "Show a node pool's details.")
    public static final class Info extends OnePool {
        @Option(names = {"-json", "--json"}, description = "Output the node pool in its JSON format.")
        boolean json;

        public Info(Context ctx) {
            super(ctx);
        }

        @Override
        protected String errorPrefix() {
            return "Error reading node pool";
        }

        @Override
        protected int run(ApiClient api) throws ApiException, UsageException {
            JsonNode pool = api.get(path(""));
            if (json) {
                ctx.out().println(Json.indent(pool));
                return 0;
            }
            Nomad.keyValues(ctx.out(), "Name", Json.text(pool.get("Name")), "Description",
                    Json.text(pool.get("Description")));
            ctx.out().println();
            ctx.out().println("Metadata");
            JsonNode meta = pool.path("Meta");
            if (meta.isEmpty()) {
                ctx.out().println("No metadata");
            } else {
                List<List<String>> rows = new ArrayList<>();
                meta.fields().forEachRemaining(e -> rows.add(List.of(e.getKey(), e.getValue().asText())));
                Nomad.keyValues(ctx.out(), rows);
            }
            ctx.out().println();
            ctx.out().println("Scheduler Configuration");
            JsonNode sc = pool.path("SchedulerConfiguration");
            if (!sc.isObject() || sc.isEmpty()) {
                ctx.out().println("No scheduler configuration");
            } else {
                JsonNode memory = sc.path("MemoryOversubscriptionEnabled");
                Nomad.keyValues(ctx.out(), "Scheduler Algorithm", Json.text(sc.get("SchedulerAlgorithm")),
                        "Memory Oversubscription Enabled", memory.isBoolean() ? memory.asText() : "");
            }
            return 0;
        }
    }

    @Command(name = "delete", description = "Delete a node pool.")
    public static final class Delete extends OnePool {
        public Delete(Context ctx) {
            super(ctx);
        }

        @Override
        protected String errorPrefix() {
            return "Error deleting node pool";
        }

        @Override
        protected int run(ApiClient api) throws ApiException, UsageException {
            api.delete(path(""), Map.of());
            ctx.out().println("Successfully deleted node pool \"" + pool() + "\"!");
            return 0;
        }
    }

    @Command(name = "nodes", description = "List the nodes in a node pool.")
    public static final class Nodes extends OnePool {
        @Option(names = {"-json", "--json"}, description = "Output the nodes in their JSON format.")
        boolean json;

        public Nodes(Context ctx) {
            super(ctx);
        }

        @Override
        protected String errorPrefix() {
            return "Error querying nodes";
        }

        @Override
        protected int run(ApiClient api) throws ApiException, UsageException {
            JsonNode nodes = api.get(path("/nodes"));
            if (json) {
                ctx.out().println(Json.indent(nodes));
                return 0;
            }
            if (nodes.isEmpty()) {
                ctx.out().println("No nodes in node pool \"" + pool() + "\"");
                return 0;
            }
            Table table = new Table("ID", "Node Pool", "DC", "Name", "Class", "Drain", "Eligibility", "Status")
                    .placeholder(Nomad.NONE);
            for (JsonNode n : nodes) {
                table.row(Nomad.shortId(Json.text(n.get("ID"))), Json.text(n.get("NodePool")),
                        Json.text(n.get("Datacenter")), Json.text(n.get("Name")), Json.text(n.get("NodeClass")),
                        Boolean.toString(n.path("Drain").asBoolean()), Json.text(n.get("SchedulingEligibility")),
                        Json.text(n.get("Status")));
            }
            table.print(ctx.out());
            return 0;
        }
    }

    @Command(name = "jobs", description = "List the jobs in a node pool.")
    public static final class Jobs extends OnePool {
        @Option(names = {"-json", "--json"}, description = "Output the jobs in their JSON format.")
        boolean json;

        public Jobs(Context ctx) {
            super(ctx);
        }

        @Override
        protected String errorPrefix() {
            return "Error querying jobs";
        }

        @Override
        protected int run(ApiClient api) throws ApiException, UsageException {
            JsonNode jobs = api.get(path("/jobs"), Map.of("namespace", "*"));
            if (json) {
                ctx.out().println(Json.indent(jobs));
                return 0;
            }
            if (jobs.isEmpty()) {
                ctx.out().println("No jobs in node pool \"" + pool() + "\"");
                return 0;
            }
            Table table = new Table("ID", "Namespace", "Type", "Priority", "Status", "Submit Date")
                    .placeholder(Nomad.NONE);
            for (JsonNode j : jobs) {
                table.row(Json.text(j.get("ID")), Json.text(j.get("Namespace")), Json.text(j.get("Type")),
                        Json.text(j.get("Priority")), Json.text(j.get("Status")),
                        Nomad.date(j.path("SubmitTime").asLong(), ctx.zone()));
            }
            table.print(ctx.out());
            return 0;
        }
    }

    @Command(name = "apply", description = {"Create or update a node pool from a specification file.",
            "<input> is the file (HCL, or JSON with -json); '-' reads it from standard input."})
    public static final class Apply extends HttpCommand {
        @Option(names = {"-json", "--json"}, description = "Parse the input as JSON rather than HCL.")
        boolean json;

        @Parameters(arity = "0..*", paramLabel = "<input>", description = "A specification file or '-'.")
        List<String> args = List.of();

        public Apply(Context ctx) {
            super(ctx);
        }

        @Override
        protected String errorPrefix() {
            return "Error applying node pool";
        }

        @Override
        protected int run(ApiClient api) throws ApiException, UsageException {
            if (args.size() != 1) {
                throw new UsageException("This command takes one argument: <input>");
            }
            String input = args.get(0);
            ObjectNode pool;
            try {
                String text = InputFile.STDIN.equals(input) ? InputFile.read(ctx, input)
                        : Files.readString(ctx.file(input));
                pool = NodePoolSpec.parse(text, InputFile.STDIN.equals(input) ? "<stdin>" : input, json);
            } catch (IOException e) {
                ctx.err().println("Error parsing node pool specification: " + InputFile.reason(e));
                return 1;
            }
            String name = Json.text(pool.get("Name"));
            api.put("/v1/node/pools", pool);
            ctx.out().println("Successfully applied node pool \"" + name + "\"!");
            return 0;
        }
    }

    @Command(name = "init", description = "Create an example node pool specification file.")
    public static final class Init implements Callable<Integer> {
        static final String DEFAULT_HCL = "pool.nomad.hcl";
        static final String DEFAULT_JSON = "pool.nomad.json";
        static final String HCL = """
                # A node pool: clients join it with `client { node_pool = "example" }`, jobs select it with
                # `node_pool = "example"`. Apply it with `caravan node pool apply pool.nomad.hcl`.
                node_pool "example" {
                  description = "Example node pool"

                  # Free-form metadata.
                  meta {
                    environment = "production"
                  }

                  # Scheduler settings for jobs in this pool, instead of the cluster's
                  # (caravan operator scheduler set-config).
                  # scheduler_config {
                  #   scheduler_algorithm     = "spread"
                  #   memory_oversubscription = "enabled"
                  # }
                }
                """;
        static final String JSON = """
                {
                  "Name": "example",
                  "Description": "Example node pool",
                  "Meta": {
                    "environment": "production"
                  }
                }
                """;

        @Mixin
        HelpOption help;

        @Option(names = {"-json", "--json"}, description = "Write the example as the API's JSON.")
        boolean json;

        @Option(names = {"-quiet", "--quiet"}, description = "Write the example without its comments.")
        boolean quiet;

        @Parameters(arity = "0..1", paramLabel = "FILE", description = "Where to write it (default: "
                + DEFAULT_HCL + ").")
        List<String> args = List.of();

        private final Context ctx;

        public Init(Context ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() {
            String name = args.isEmpty() ? (json ? DEFAULT_JSON : DEFAULT_HCL) : args.get(0);
            Path file = ctx.file(name);
            if (Files.exists(file)) {
                ctx.err().println("Node pool specification file '" + name + "' already exists");
                return 1;
            }
            String content = json ? JSON : quiet ? HCL.lines().filter(l -> !l.strip().startsWith("#"))
                    .reduce("", (a, l) -> a + l + "\n") : HCL;
            try {
                Files.writeString(file, content, StandardCharsets.UTF_8);
            } catch (IOException e) {
                ctx.err().println("Failed to write '" + name + "': " + e.getMessage());
                return 1;
            }
            ctx.out().println("Example node pool specification written to " + name);
            return 0;
        }
    }
}
