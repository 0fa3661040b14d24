package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Table;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan status [<prefix>]}: without an argument Nomad's job list; with one, the object whose ID (or name)
 * starts with it, found by {@code /v1/search} in every context, shown by that object's own status command.
 */
@Command(name = "status", description = {"List the jobs known to the cluster, or show the status of any object",
        "(job, allocation, evaluation, node, deployment, namespace, node pool) by its ID or a prefix of it."})
public final class StatusCommand extends HttpCommand {
    /** The contexts that resolve, in the order they are looked at, and the command that shows each. */
    private static final Map<String, List<String>> COMMANDS = new LinkedHashMap<>();

    static {
        COMMANDS.put("jobs", List.of("job", "status"));
        COMMANDS.put("evals", List.of("eval", "status"));
        COMMANDS.put("allocs", List.of("alloc", "status"));
        COMMANDS.put("nodes", List.of("node", "status"));
        COMMANDS.put("deployments", List.of("deployment", "status"));
        COMMANDS.put("namespaces", List.of("namespace", "status"));
        COMMANDS.put("node_pools", List.of("node", "pool", "info"));
    }

    @Option(names = {"-json", "--json"}, description = "Output the jobs in their JSON format.")
    boolean json;

    @Parameters(arity = "0..1", paramLabel = "<identifier>", description = "An ID, or a prefix of one.")
    String id;

    public StatusCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error querying jobs";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        if (id == null) {
            return listJobs(ctx, api, json);
        }
        JsonNode matches = searchAll(api, id);
        String match = null;
        int single = 0;
        for (var e = matches.fields(); e.hasNext(); ) {
            var context = e.next();
            JsonNode ids = context.getValue();
            if (ids.size() == 1) {
                match = context.getKey();
                single++;
            } else if (ids.size() > 0 && id.equals(ids.get(0).asText())) {
                match = context.getKey();
                break;
            }
            if (single > 1 || ids.size() > 1) {
                multipleMatches(matches);
                return 1;
            }
        }
        List<String> command = match == null ? null : COMMANDS.get(match);
        if (command == null) {
            ctx.err().println("Unable to resolve ID: \"" + id + "\"");
            return 1;
        }
        // The object's own command, with this command's flags and argument as given: it resolves the prefix again.
        List<String> given = spec.root().commandLine().getParseResult().originalArgs();
        List<String> forwarded = given.subList(given.indexOf("status") + 1, given.size());
        CommandLine target = spec.root().commandLine();
        for (String name : command) {
            target = target.getSubcommands().get(name);
        }
        // A fresh command line for the target (a subcommand's own one belongs to this parse), set up as the root's.
        CommandLine root = spec.root().commandLine();
        CommandLine fresh = new CommandLine(target.getCommand()).setOut(root.getOut()).setErr(root.getErr())
                .setParameterExceptionHandler(root.getParameterExceptionHandler())
                .setExecutionExceptionHandler(root.getExecutionExceptionHandler())
                .setExpandAtFiles(false).setPosixClusteredShortOptionsAllowed(false);
        fresh.setCommandName(String.join(" ", spec.root().name(), String.join(" ", command)));
        return fresh.execute(forwarded.toArray(String[]::new));
    }

    /** Nomad's message: every context with matches, titled, its IDs comma-separated. */
    private void multipleMatches(JsonNode matches) {
        ctx.err().println("Multiple matches found for id \"" + id + "\"");
        for (var e = matches.fields(); e.hasNext(); ) {
            var context = e.next();
            if (context.getValue().isEmpty()) {
                continue;
            }
            List<String> ids = new ArrayList<>();
            context.getValue().forEach(v -> ids.add(v.asText()));
            String name = context.getKey();
            ctx.err().println("\n" + Character.toUpperCase(name.charAt(0)) + name.substring(1) + ":");
            ctx.err().println(String.join(", ", ids));
        }
    }

    /** Nomad's job list, shared by {@code status} and {@code job status} without an ID. */
    static int listJobs(Context ctx, ApiClient api, boolean json) throws ApiException {
        JsonNode jobs = api.get("/v1/jobs");
        if (!jobs.isArray()) {
            throw new ApiException("error decoding response: expected a JSON array of jobs");
        }
        // Nomad says so even under -json.
        if (jobs.isEmpty()) {
            ctx.out().println("No running jobs");
            return 0;
        }
        if (json) {
            ctx.out().println(Json.indent(jobs));
            return 0;
        }
        Table table = new Table("ID", "Type", "Priority", "Status", "Submit Date");
        for (JsonNode job : jobs) {
            table.row(Json.text(job.get("ID")), type(job), Json.text(job.get("Priority")), status(job),
                    io.caravan.cli.format.Nomad.date(job.path("SubmitTime").asLong(), ctx.zone()));
        }
        table.print(ctx.out());
        return 0;
    }

    private static String type(JsonNode job) {
        String type = Json.text(job.get("Type"));
        if (job.path("Periodic").asBoolean()) {
            type += "/periodic";
        }
        if (job.path("ParameterizedJob").asBoolean()) {
            type += "/parameterized";
        }
        return type;
    }

    private static String status(JsonNode job) {
        String status = Json.text(job.get("Status"));
        return job.path("Stop").asBoolean() ? status + " (stopped)" : status;
    }

    /** Nomad's prefix search over every context ({@code status} and {@code ui} resolve an ID with it). */
    static JsonNode searchAll(ApiClient api, String id) throws ApiException {
        ObjectNode query = NomadJson.mapper().createObjectNode().put("Prefix", id).put("Context", "all");
        try {
            return api.post("/v1/search", query).path("Matches");
        } catch (ApiException e) {
            throw new ApiException("Error querying search with id: \"" + e.getMessage() + "\"");
        }
    }
}
