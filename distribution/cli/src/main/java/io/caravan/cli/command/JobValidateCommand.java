package io.caravan.cli.command;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code caravan job validate FILE}: parse and validate a job without registering it. */
@Command(name = "validate", description = "Check a job file for errors without submitting it.")
public final class JobValidateCommand extends HttpCommand {

    @Parameters(paramLabel = "FILE", description = "The job file.")
    Path file;

    @Option(names = {"-var", "--var"}, description = "A variable, name=value (repeatable).")
    List<String> vars = new ArrayList<>();

    @Option(names = {"-var-file", "--var-file"}, description = "A file of HCL variable values (repeatable).")
    List<Path> varFiles = new ArrayList<>();

    public JobValidateCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error validating job";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode job = JobFile.read(api, file, vars, varFiles);
        ObjectNode request = NomadJson.mapper().createObjectNode();
        request.set("Job", job);
        JsonNode response = api.put("/v1/validate/job", request);
        JsonNode errors = response.path("ValidationErrors");
        if (errors.isArray() && !errors.isEmpty()) {
            ctx.err().println("Job validation errors:");
            errors.forEach(e -> ctx.err().println("* " + e.asText()));
            return 1;
        }
        ctx.out().println("Job validation successful");
        return 0;
    }
}
