package io.caravan.cli.command;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code caravan job run FILE}: registers the job, then follows its evaluation as Nomad does (see
 * {@link EvalMonitor}); {@code -detach} prints the evaluation ID instead. Periodic and parameterized jobs have no
 * evaluation to follow. Exit 0 when everything was placed, 2 on placement failures, 1 on errors.
 */
@Command(name = "run", description = "Submit a job (HCL or JSON) to the cluster and monitor its evaluation.")
public final class JobRunCommand extends HttpCommand {
    /** Nomad's check-index conflict, e.g. "(Enforcing job modify index 5: job exists with conflicting index 7)". */
    private static final Pattern ENFORCE_INDEX = Pattern.compile("\\((Enforcing job modify index.*)\\)");

    @Mixin
    JobFileOptions jobFile;

    @Option(names = {"-check-index", "--check-index"}, description = "Register only if the job's modify index is this.")
    Long checkIndex;

    @Option(names = {"-detach", "--detach"}, description = "Return at once with the evaluation ID.")
    boolean detach;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs.")
    boolean verbose;

    public JobRunCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error submitting job";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        JsonNode job = jobFile.job(api);
        ObjectNode request = NomadJson.mapper().createObjectNode();
        request.set("Job", job);
        if (checkIndex != null) {
            request.put("EnforceIndex", true);
            request.put("JobModifyIndex", checkIndex);
        }
        JsonNode response;
        try {
            response = api.put("/v1/jobs", request);
        } catch (ApiException e) {
            Matcher conflict = ENFORCE_INDEX.matcher(e.getMessage());
            if (!conflict.find()) {
                throw e;
            }
            ctx.err().println(conflict.group(1));
            ctx.err().println("Job not updated");
            return 1;
        }
        String warnings = Json.text(response.get("Warnings"));
        if (!warnings.isEmpty()) {
            ctx.out().println("Job Warnings:");
            ctx.out().println(warnings);
            ctx.out().println();
        }
        String evalId = Json.text(response.get("EvalID"));
        boolean periodic = Json.present(job.get("Periodic"));
        boolean parameterized = Json.present(job.get("ParameterizedJob"));
        if (detach || periodic || parameterized || evalId.isEmpty()) {
            ctx.out().println("Job registration successful");
            if (periodic && !parameterized) {
                String next = JobStatusCommand.nextLaunch(job.get("Periodic"));
                if (next != null) {
                    ctx.out().println("Approximate next launch time: " + next);
                }
            } else if (!parameterized && !evalId.isEmpty()) {
                ctx.out().println("Evaluation ID: " + evalId);
            }
            return 0;
        }
        return new EvalMonitor(ctx, api, verbose).monitor(evalId);
    }
}
