package io.caravan.cli.command;

import java.io.IOException;
import java.util.List;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan acl policy apply [-description D] [-namespace NS -job JOB [-group G [-task T]]] NAME PATH}: creates
 * or updates a policy from a rules file, attached to a job's workload identities when {@code -job} is given.
 */
@Command(name = "apply", description = {"Create or update an ACL policy.",
        "The rules are read from PATH, or from standard input when PATH is '-'."})
public final class AclPolicyApplyCommand extends HttpCommand {

    @Option(names = {"-description", "--description"}, paramLabel = "<text>",
            description = "A human readable description of the policy.")
    String description = "";

    @Option(names = {"-job", "--job"}, paramLabel = "<job ID>",
            description = "Attach the policy to the workload identities of this job (of the -namespace given, "
                    + "default: default).")
    String job = "";

    @Option(names = {"-group", "--group"}, paramLabel = "<group>",
            description = "With -job: attach the policy to this task group's workloads only.")
    String group = "";

    @Option(names = {"-task", "--task"}, paramLabel = "<task>",
            description = "With -job and -group: attach the policy to this task's workload only.")
    String task = "";

    @Parameters(arity = "0..*", paramLabel = "NAME PATH", description = "The policy's name and its rules file.")
    List<String> args = List.of();

    public AclPolicyApplyCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error writing ACL policy";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (args.size() != 2) {
            throw new UsageException("This command takes two arguments: <name> and <path>");
        }
        if (job.isEmpty() && !(group.isEmpty() && task.isEmpty())) {
            throw new UsageException("-group and -task require -job");
        }
        if (group.isEmpty() && !task.isEmpty()) {
            throw new UsageException("-task requires -group");
        }
        String name = args.get(0);
        String rules;
        try {
            rules = InputFile.read(ctx, args.get(1));
        } catch (IOException e) {
            ctx.err().println((InputFile.STDIN.equals(args.get(1)) ? "Failed to read stdin: " : "Failed to read file: ")
                    + InputFile.reason(e));
            return 1;
        }
        ObjectNode policy = NomadJson.mapper().createObjectNode()
                .put("Name", name).put("Description", description).put("Rules", rules);
        if (!job.isEmpty()) {
            policy.putObject("JobACL").put("Namespace", connection.namespace(ctx)).put("JobID", job)
                    .put("Group", group).put("Task", task);
        }
        api.put("/v1/acl/policy/" + Json.pathSegment(name), policy);
        ctx.out().println("Successfully wrote " + Nomad.quote(name) + " ACL policy!");
        return 0;
    }
}
