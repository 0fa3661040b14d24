package io.caravan.cli.command;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.json.NomadJson;
import io.caravan.cli.Context;
import io.caravan.cli.format.GoDuration;
import io.caravan.cli.format.Json;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan job restart [options] JOB}: Nomad 1.6's batched restart. Restarts the job's running allocations in
 * place ({@code PUT /v1/client/allocation/:id/restart}) or, with {@code -reschedule}, stops them so the scheduler
 * replaces them ({@code PUT /v1/allocation/:id/stop}), a batch at a time; each batch's allocations (or their
 * replacements) must be running again before the next batch starts. Every wait is bounded by
 * {@code CARAVAN_MONITOR_TIMEOUT} ({@link Watch}). Exit code 1 when any allocation failed.
 */
@Command(name = "restart", description = "Restart or reschedule allocations for a job.")
public final class JobRestartCommand extends HttpCommand {
    private static final Pattern BATCH_SIZE = Pattern.compile("^(\\d+)(%?)$");
    private static final String ASK = "ask";
    private static final String FAIL = "fail";

    @Parameters(paramLabel = "JOB", description = "A job ID or a unique prefix of one.")
    String id;

    @Option(names = {"-all-tasks", "--all-tasks"}, description = "Restart every task, even the ones already run.")
    boolean allTasks;

    @Option(names = {"-batch-size", "--batch-size"}, defaultValue = "1",
            description = "Allocations restarted at once: N or N% of the running ones (rounded up). Default 1.")
    String batchSizeText;

    @Option(names = {"-batch-wait", "--batch-wait"}, defaultValue = "0s",
            description = "Time to wait between batches, or 'ask'. Default 0.")
    String batchWaitText;

    @Option(names = {"-group", "--group"}, description = "Only restart allocations of this group (repeatable).")
    List<String> groups = new ArrayList<>();

    @Option(names = {"-task", "--task"}, description = "Only restart this task (repeatable).")
    List<String> tasks = new ArrayList<>();

    @Option(names = {"-no-shutdown-delay", "--no-shutdown-delay"},
            description = "Ignore the group's and tasks' shutdown_delay.")
    boolean noShutdownDelay;

    @Option(names = {"-on-error", "--on-error"}, defaultValue = ASK,
            description = "On a batch error: 'ask' how to go on, or 'fail' at once. Default 'ask'.")
    String onError;

    @Option(names = {"-reschedule", "--reschedule"}, description = "Stop the allocations and have them replaced.")
    boolean reschedule;

    @Option(names = {"-yes", "--yes"}, description = "Answer yes to every question: ignore batch errors, never wait.")
    boolean yes;

    @Option(names = {"-verbose", "--verbose"}, description = "Show full IDs and skipped allocations.")
    boolean verbose;

    private Watch watch;
    private Duration batchWait = Duration.ZERO;
    private boolean batchWaitAsk;

    public JobRestartCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error restarting job";
    }

    private record Alloc(String id, String group) {}

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        Matcher size = BATCH_SIZE.matcher(batchSizeText);
        if (!size.matches()) {
            throw new UsageException("Invalid -batch-size value " + Nomad.quote(batchSizeText)
                    + ": batch size must be an integer or a percentage");
        }
        int batchSize;
        try {
            batchSize = Integer.parseInt(size.group(1));
        } catch (NumberFormatException e) {
            throw new UsageException("Invalid -batch-size value " + Nomad.quote(batchSizeText) + ": out of range");
        }
        if (batchSize == 0) {
            throw new UsageException("Invalid -batch-size value " + Nomad.quote(batchSizeText)
                    + ": number value must be greater than zero");
        }
        if (batchWaitText.toLowerCase(Locale.ROOT).equals(ASK)) {
            batchWaitAsk = true;
        } else {
            try {
                batchWait = GoDuration.parse(batchWaitText);
            } catch (IllegalArgumentException e) {
                throw new UsageException("Invalid -batch-wait value " + Nomad.quote(batchWaitText) + ": "
                        + e.getMessage());
            }
        }
        if (!onError.equals(ASK) && !onError.equals(FAIL)) {
            throw new UsageException("Invalid -on-error value " + Nomad.quote(onError)
                    + ": valid options are \"ask\" and \"fail\"");
        }
        if (allTasks && !tasks.isEmpty()) {
            throw new UsageException("The -all-tasks option cannot be used with -task");
        }
        if (reschedule && !tasks.isEmpty()) {
            throw new UsageException("The -reschedule option cannot be used with -task");
        }
        Set<String> groupSet = new LinkedHashSet<>(groups);
        Set<String> taskSet = new LinkedHashSet<>(tasks);

        String jobId = Lookup.id(api, "/v1/jobs", "job", id);
        JsonNode job = api.get("/v1/job/" + Json.pathSegment(jobId));
        if (reschedule && "sysbatch".equals(Json.text(job.get("Type")))) {
            // A stopped sysbatch allocation is never replaced, so the wait for a replacement could not end.
            ctx.err().println("The -reschedule option cannot be used with sysbatch jobs");
            return 1;
        }
        watch = new Watch(ctx);
        List<Alloc> allocs = eligible(api.get("/v1/job/" + Json.pathSegment(jobId) + "/allocations"),
                groupSet, taskSet);
        if (allocs.isEmpty()) {
            ctx.out().println("No allocations to restart");
            return 0;
        }
        if (!size.group(2).isEmpty()) {
            batchSize = (int) Math.ceil(allocs.size() * (double) batchSize / 100);
        }
        info("Restarting " + plural(allocs.size(), "allocation"));

        List<String> errors = new ArrayList<>();
        boolean canceled = false;
        batches:
        for (int start = 0; start < allocs.size(); start += batchSize) {
            List<Alloc> batch = allocs.subList(start, Math.min(allocs.size(), start + batchSize));
            List<String> batchErrors = new ArrayList<>();
            List<Alloc> acted = new ArrayList<>();
            for (Alloc alloc : batch) {
                // As Nomad: never restart under a rolling deployment, which would fight the restarts.
                String deploying = activeDeployment(api, jobId);
                if (deploying != null) {
                    errors.addAll(batchErrors);
                    errors.add(deploying);
                    break batches;
                }
                if (alloc == batch.get(0) && batchSize > 1) {
                    info("Restarting " + ordinal(start / batchSize + 1) + " batch of " + batch.size()
                            + " allocations");
                }
                String failure = handle(api, alloc, taskSet);
                if (failure != null) {
                    batchErrors.add("Error restarting allocation " + Nomad.quote(shortId(alloc.id())) + ": "
                            + failure);
                } else {
                    acted.add(alloc);
                }
            }
            // The whole batch restarts at once (as Nomad's goroutines); then each must be running again.
            for (Alloc alloc : acted) {
                String failure;
                try {
                    failure = awaitRunning(api, alloc.id(), reschedule);
                } catch (ApiException e) {
                    failure = e.getMessage();
                }
                if (failure != null) {
                    batchErrors.add("Error restarting allocation " + Nomad.quote(shortId(alloc.id())) + ": "
                            + failure);
                }
            }
            errors.addAll(batchErrors);
            if (start + batchSize >= allocs.size()) {
                break;
            }
            if (!batchErrors.isEmpty() && onError.equals(FAIL)) {
                info("Stopping job restart due to error");
                break;
            }
            boolean askUser = !yes && (batchWaitAsk || (onError.equals(ASK) && !batchErrors.isEmpty()));
            if (askUser) {
                if (!batchErrors.isEmpty()) {
                    ctx.out().println("==> " + watch.stamp(errorList(batchErrors)));
                }
                if (!proceed(!batchErrors.isEmpty())) {
                    info("Job restart canceled");
                    canceled = true;
                    break;
                }
            }
            if (batchWait.compareTo(Duration.ZERO) > 0) {
                info("Waiting " + GoDuration.format(batchWait) + " before restarting the next batch");
                watch.sleep(batchWait);
            }
        }
        if (!errors.isEmpty()) {
            if (!canceled) {
                info("Job restart finished with errors");
            }
            ctx.err().println();
            ctx.err().println(errorList(errors));
            return 1;
        }
        if (!canceled) {
            info("Job restart finished");
            ctx.out().println();
            ctx.out().println("Job restarted successfully!");
        }
        return 0;
    }

    /** Nomad's refusal while one of the job's deployments is not terminal, or null. */
    private String activeDeployment(ApiClient api, String jobId) {
        JsonNode deployments;
        try {
            deployments = api.get("/v1/job/" + Json.pathSegment(jobId) + "/deployments");
        } catch (ApiException e) {
            return "Error retrieving deployments for job " + Nomad.quote(jobId) + ": " + e.getMessage();
        }
        for (JsonNode d : deployments) {
            String status = Json.text(d.get("Status"));
            if (!List.of("failed", "successful", "cancelled").contains(status)) {
                return "Deployment " + Nomad.quote(shortId(Json.text(d.get("ID")))) + " is " + Nomad.quote(status);
            }
        }
        return null;
    }

    /** The running allocations (desired or actual) of the requested groups that have one of the requested tasks. */
    private List<Alloc> eligible(JsonNode stubs, Set<String> groupSet, Set<String> taskSet) {
        List<Alloc> result = new ArrayList<>();
        for (JsonNode stub : stubs) {
            String allocId = Json.text(stub.get("ID"));
            String group = Json.text(stub.get("TaskGroup"));
            String client = Json.text(stub.get("ClientStatus"));
            String desired = Json.text(stub.get("DesiredStatus"));
            if (!"running".equals(client) && !"run".equals(desired)) {
                skipped(allocId, "because desired status is " + Nomad.quote(desired) + " and client status is "
                        + Nomad.quote(client));
            } else if (!groupSet.isEmpty() && !groupSet.contains(group)) {
                skipped(allocId, "because it doesn't have any of requested groups");
            } else if (!taskSet.isEmpty() && taskSet.stream().noneMatch(t -> stub.path("TaskStates").has(t))) {
                skipped(allocId, "because it doesn't have any of requested tasks");
            } else {
                result.add(new Alloc(allocId, group));
            }
        }
        return result;
    }

    private void skipped(String allocId, String why) {
        if (verbose) {
            detail("Skipping allocation " + Nomad.quote(shortId(allocId)) + " " + why);
        }
    }

    /** Restarts or reschedules one allocation; the failure, or null. */
    private String handle(ApiClient api, Alloc alloc, Set<String> taskSet) {
        String path = Json.pathSegment(alloc.id());
        try {
            if (reschedule) {
                detail("Rescheduling allocation " + Nomad.quote(shortId(alloc.id())) + " for group "
                        + Nomad.quote(alloc.group()));
                Map<String, String> query = noShutdownDelay ? Map.of("no_shutdown_delay", "true") : Map.of();
                try {
                    api.put("/v1/allocation/" + path + "/stop", query, null);
                } catch (ApiException e) {
                    return "Failed to stop allocation: " + e.getMessage();
                }
                return null;
            }
            if (allTasks || taskSet.isEmpty()) {
                detail("Restarting " + (allTasks ? "all" : "running") + " tasks in allocation "
                        + Nomad.quote(shortId(alloc.id())) + " for group " + Nomad.quote(alloc.group()));
                api.put("/v1/client/allocation/" + path + "/restart", restartBody(null));
            } else {
                for (String task : taskSet) {
                    detail("Restarting task " + Nomad.quote(task) + " in allocation "
                            + Nomad.quote(shortId(alloc.id())) + " for group " + Nomad.quote(alloc.group()));
                    try {
                        api.put("/v1/client/allocation/" + path + "/restart", restartBody(task));
                    } catch (ApiException e) {
                        return "Failed to restart task " + Nomad.quote(task) + ": " + e.getMessage();
                    }
                }
            }
            return null;
        } catch (ApiException e) {
            return e.getMessage();
        }
    }

    private JsonNode restartBody(String task) {
        var body = NomadJson.mapper().createObjectNode();
        if (task != null) {
            body.put("TaskName", task);
        }
        body.put("AllTasks", allTasks);
        // The restart endpoint has no shutdown-delay switch; an in-place restart does not deregister services.
        return body;
    }

    /**
     * Follows {@code allocId} (and, when {@code replaced}, its chain of NextAllocation) with blocking reads until
     * an allocation other than a replaced original is running; the failure, or null.
     */
    private String awaitRunning(ApiClient api, String allocId, boolean replaced) throws ApiException {
        String current = allocId;
        long index = 0;
        while (true) {
            if (watch.expired()) {
                return "Timed out after " + GoDuration.format(watch.timeout()) + " waiting for allocation "
                        + Nomad.quote(shortId(current)) + " to be running (" + Watch.TIMEOUT_ENV + ")";
            }
            java.time.Instant asked = java.time.Instant.now();
            ApiClient.Response r = api.query("/v1/allocation/" + Json.pathSegment(current), watch.blocking(index),
                    watch.requestTimeout());
            JsonNode alloc = r.body();
            String next = Json.text(alloc.get("NextAllocation"));
            if (replaced && !next.isEmpty()) {
                detail("Allocation " + Nomad.quote(shortId(current)) + " replaced by " + Nomad.quote(shortId(next))
                        + ", waiting for " + Nomad.quote(shortId(next)) + " to start running");
                current = next;
                index = 0;
                continue;
            }
            String status = Json.text(alloc.get("ClientStatus"));
            if ("running".equals(status) && (!replaced || !current.equals(allocId))) {
                if (replaced) {
                    detail("Allocation " + Nomad.quote(shortId(current)) + " is " + Nomad.quote(status));
                }
                return null;
            }
            if (!replaced && List.of("failed", "lost", "complete").contains(status)) {
                return "Allocation " + Nomad.quote(shortId(current)) + " is " + Nomad.quote(status);
            }
            watch.pace(asked, r.index() != index);
            index = r.index();
        }
    }

    /** Nomad's question between batches; true to go on. End of input (a script without -yes) means no. */
    private boolean proceed(boolean failed) {
        String question = failed ? "Ignore the errors above and proceed with the next batch?"
                : "Proceed with the next batch?";
        String options = (failed ? "y/N" : "Y/n") + (batchWaitAsk ? "/<wait duration>" : "");
        while (true) {
            String answer;
            try {
                answer = ctx.ask("==> " + watch.stamp(question + " [" + options + "]"));
            } catch (java.io.IOException e) {
                answer = null;
            }
            if (answer == null) {
                ctx.out().println();
                return false;
            }
            switch (answer.toLowerCase(Locale.ROOT)) {
                case "":
                    return !failed;
                case "y", "yes":
                    return true;
                case "n", "no":
                    return false;
                default:
                    if (batchWaitAsk) {
                        try {
                            batchWait = GoDuration.parse(answer);
                            batchWaitAsk = false;
                            info("Proceeding restarts with new wait time of " + GoDuration.format(batchWait));
                            return true;
                        } catch (IllegalArgumentException e) {
                            // fall through to the complaint below, then ask again
                        }
                    }
                    ctx.out().println(" ".repeat(31) + "Invalid answer " + Nomad.quote(answer));
            }
        }
    }

    private String errorList(List<String> errors) {
        StringBuilder s = new StringBuilder(plural(errors.size(), "error") + " occurred while restarting job:");
        for (String e : errors) {
            s.append("\n* ").append(e.strip());
        }
        return s.toString();
    }

    private void info(String message) {
        ctx.out().println("==> " + watch.stamp(message));
        ctx.out().flush();
    }

    private void detail(String message) {
        ctx.out().println("    " + watch.stamp(message));
        ctx.out().flush();
    }

    private String shortId(String allocId) {
        return Nomad.id(allocId, verbose);
    }

    private static String plural(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    static String ordinal(int n) {
        int mod100 = n % 100;
        String suffix = mod100 >= 11 && mod100 <= 13 ? "th" : switch (n % 10) {
            case 1 -> "st";
            case 2 -> "nd";
            case 3 -> "rd";
            default -> "th";
        };
        return n + suffix;
    }
}
