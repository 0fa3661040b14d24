package io.caravan.cli.command;


import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code caravan job validate FILE}: parse (here) and validate (by the agent) a job without registering it; with no
 * agent reachable, the local parse is the check, as Nomad's falls back to local validation.
 */
@Command(name = "validate", description = "Check a job file for errors without submitting it.")
public final class JobValidateCommand extends HttpCommand {

    @Mixin
    JobFileOptions jobFile;

    public JobValidateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error validating job";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode job = jobFile.job(api);
        ObjectNode request = NomadJson.mapper().createObjectNode();
        request.set("Job", job);
        JsonNode response;
        try {
            response = api.put("/v1/validate/job", request);
        } catch (ApiException e) {
            if (!e.unreachable()) {
                throw e;
            }
            // As Nomad's: no agent, so the file is checked here only (it parsed: syntax, blocks, types).
            ctx.err().println("Warning: could not reach an agent (" + e.getMessage() + "); the job file was checked "
                    + "locally only, not against the server's rules");
            ctx.out().println("Job validation successful");
            return 0;
        }
        JsonNode errors = response.path("ValidationErrors");
        if (errors.isArray() && !errors.isEmpty()) {
            ctx.err().println("Job validation errors:");
            errors.forEach(e -> ctx.err().println("* " + e.asText()));
            return 1;
        }
        String warnings = Json.text(response.get("Warnings"));
        if (!warnings.isEmpty()) {
            ctx.out().println("Job Warnings:");
            ctx.out().println(warnings);
            ctx.out().println();
        }
        ctx.out().println("Job validation successful");
        return 0;
    }
}
