package io.caravan.cli.command;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code caravan operator scheduler set-config [flags]}: reads the current configuration, applies the flags given
 * and writes it back as a check-and-set on its modify index ({@code ?cas=}), as Nomad does. Flags not given keep
 * their value. Exit 0 when updated, 1 when a concurrent change won or on errors.
 */
@Command(name = "set-config", description = "Modify the scheduler configuration.")
public final class SchedulerSetConfigCommand extends HttpCommand {

    @Option(names = {"-scheduler-algorithm", "--scheduler-algorithm"}, paramLabel = "binpack|spread",
            description = "How allocations are spread over nodes.")
    String algorithm;

    @Option(names = {"-memory-oversubscription", "--memory-oversubscription"}, arity = "0..1",
            fallbackValue = "true", converter = GoBool.class, paramLabel = "<bool>",
            description = "Let tasks use memory beyond their reservation (memory_max).")
    Boolean memoryOversubscription;

    @Option(names = {"-reject-job-registration", "--reject-job-registration"}, arity = "0..1",
            fallbackValue = "true", converter = GoBool.class, paramLabel = "<bool>",
            description = "Refuse job registrations and dispatches (management tokens excepted).")
    Boolean rejectJobRegistration;

    @Option(names = {"-pause-eval-broker", "--pause-eval-broker"}, arity = "0..1", fallbackValue = "true",
            converter = GoBool.class, paramLabel = "<bool>", description = "Pause the evaluation broker.")
    Boolean pauseEvalBroker;

    @Option(names = {"-preempt-batch-scheduler", "--preempt-batch-scheduler"}, arity = "0..1",
            fallbackValue = "true", converter = GoBool.class, paramLabel = "<bool>",
            description = "Let batch jobs preempt lower-priority allocations.")
    Boolean preemptBatch;

    @Option(names = {"-preempt-service-scheduler", "--preempt-service-scheduler"}, arity = "0..1",
            fallbackValue = "true", converter = GoBool.class, paramLabel = "<bool>",
            description = "Let service jobs preempt lower-priority allocations.")
    Boolean preemptService;

    @Option(names = {"-preempt-sysbatch-scheduler", "--preempt-sysbatch-scheduler"}, arity = "0..1",
            fallbackValue = "true", converter = GoBool.class, paramLabel = "<bool>",
            description = "Let sysbatch jobs preempt lower-priority allocations.")
    Boolean preemptSysBatch;

    @Option(names = {"-preempt-system-scheduler", "--preempt-system-scheduler"}, arity = "0..1",
            fallbackValue = "true", converter = GoBool.class, paramLabel = "<bool>",
            description = "Let system jobs preempt lower-priority allocations.")
    Boolean preemptSystem;

    @Option(names = {"-check-index", "--check-index"}, paramLabel = "<index>",
            description = "Apply only if the configuration's modify index is still this.")
    Long checkIndex;

    public SchedulerSetConfigCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error setting scheduler configuration";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (algorithm != null && !algorithm.equals("binpack") && !algorithm.equals("spread")) {
            throw new UsageException("Invalid scheduler algorithm \"" + algorithm + "\": must be binpack or spread");
        }
        JsonNode current;
        try {
            current = api.get(SchedulerGetConfigCommand.PATH).path("SchedulerConfig");
        } catch (ApiException e) {
            ctx.err().println("Error querying for scheduler configuration: " + e.getMessage());
            return 1;
        }
        if (!current.isObject()) {
            throw new ApiException("the agent sent no SchedulerConfig");
        }
        ObjectNode config = ((ObjectNode) current).deepCopy();
        long index = config.path("ModifyIndex").asLong();
        if (checkIndex != null && checkIndex > 0 && checkIndex != index) {
            ctx.err().println("Error performing check index set: check-index " + checkIndex
                    + " does not match does not match current state value " + index);
            return 1;
        }
        if (checkIndex != null && checkIndex > 0) {
            index = checkIndex;
            config.put("ModifyIndex", index);
        }
        if (algorithm != null) {
            config.put("SchedulerAlgorithm", algorithm);
        }
        merge(config, "MemoryOversubscriptionEnabled", memoryOversubscription);
        merge(config, "RejectJobRegistration", rejectJobRegistration);
        merge(config, "PauseEvalBroker", pauseEvalBroker);
        ObjectNode preemption = config.has("PreemptionConfig") && config.get("PreemptionConfig").isObject()
                ? (ObjectNode) config.get("PreemptionConfig") : config.putObject("PreemptionConfig");
        merge(preemption, "BatchSchedulerEnabled", preemptBatch);
        merge(preemption, "ServiceSchedulerEnabled", preemptService);
        merge(preemption, "SysBatchSchedulerEnabled", preemptSysBatch);
        merge(preemption, "SystemSchedulerEnabled", preemptSystem);

        JsonNode result = api.put(SchedulerGetConfigCommand.PATH, Map.of("cas", Long.toString(index)), config);
        if (result.path("Updated").asBoolean()) {
            ctx.out().println("Scheduler configuration updated!");
            return 0;
        }
        ctx.out().println("Scheduler configuration could not be atomically updated, please try again");
        return 1;
    }

    private static void merge(ObjectNode target, String field, Boolean value) {
        if (value != null) {
            target.put(field, value);
        }
    }
}
