package io.caravan.server.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.CaravanException;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Job;
import io.caravan.jobspec.JobWarnings;

/**
 * A submitted job made whole and checked, as Nomad's API canonicalises it: the defaults a user may leave out
 * (priority 50, the default namespace, restart and reschedule policies by job type, update strategies, resources,
 * log config) are filled on the JSON tree, then every problem is reported at once with its field path. Pure.
 */
final class Jobs {
    static final Set<String> TYPES = Set.of("service", "batch", "system", "sysbatch");
    private static final long SECOND = 1_000_000_000L;
    private static final long MINUTE = 60 * SECOND;
    private static final long HOUR = 60 * MINUTE;

    private Jobs() {
    }

    /** {@link #canonical(JsonNode, String, JobLimits)} with Nomad's default limits. */
    static Job canonical(JsonNode body, String region) {
        return canonical(body, region, JobLimits.DEFAULT);
    }

    /** {@code {"Job": {...}}} (or the bare job) as a canonical Job; a 400 listing every problem otherwise. */
    static Job canonical(JsonNode body, String region, JobLimits limits) {
        JsonNode node = body.has("Job") ? body.get("Job") : body;
        if (!(node instanceof ObjectNode job)) {
            throw CaravanException.badRequest("Job: missing job");
        }
        ObjectNode copy = job.deepCopy();
        defaults(copy, region, limits);
        check(copy, limits);
        UpdateRules.stored(copy);
        try {
            return NomadJson.mapper().treeToValue(copy, Job.class);
        } catch (JsonProcessingException e) {
            throw CaravanException.badRequest("Job: " + e.getOriginalMessage());
        }
    }

    /**
     * Nomad's {@code Warnings} for a submitted job ({@code {"Job": {...}}} or the bare job), as written: each block it
     * sets that Caravan does not act on yet; empty when none.
     */
    static String warnings(JsonNode body) {
        JsonNode job = body.has("Job") ? body.get("Job") : body;
        return JobWarnings.format(JobWarnings.unsupported(job));
    }

    /** A 400 listing every problem of a canonical job tree, if it has any. */
    static void check(ObjectNode job, JobLimits limits) {
        List<String> problems = validate(job, limits);
        if (!problems.isEmpty()) {
            throw CaravanException.badRequest(summary(problems));
        }
    }

    /** Nomad's multierror text: "N errors in the job:" and one bullet a problem. */
    static String summary(List<String> problems) {
        return problems.size() + " error" + (problems.size() == 1 ? "" : "s") + " in the job:\n* "
                + String.join("\n* ", problems);
    }

    static void defaults(ObjectNode job, String region, JobLimits limits) {
        putIfMissing(job, "Region", region);
        putIfMissing(job, "Namespace", "default");
        if (isMissing(job, "Name") && !isMissing(job, "ID")) {
            job.put("Name", job.get("ID").asText());
        }
        putIfMissing(job, "Type", "service");
        JsonNode priority = job.path("Priority");
        if (isMissing(job, "Priority") || priority.isNumber() && priority.asDouble() == 0) {
            job.put("Priority", limits.defaultPriority()); // unset or 0: the server's job_default_priority
        }
        putIfMissing(job, "NodePool", "default");
        putIfMissing(job, "AllAtOnce", false);
        if (!job.path("Datacenters").isArray() || job.path("Datacenters").isEmpty()) {
            job.putArray("Datacenters").add("*"); // Nomad ≥ 1.5: every datacenter
        }
        // Nomad's PeriodicConfig and ParameterizedJobConfig canonicalisation.
        if (job.get("Periodic") instanceof ObjectNode periodic) {
            putIfMissing(periodic, "Enabled", true);
            putIfMissing(periodic, "SpecType", "cron");
            putIfMissing(periodic, "ProhibitOverlap", false);
            putIfMissing(periodic, "TimeZone", "UTC");
        }
        if (job.get("ParameterizedJob") instanceof ObjectNode parameterized) {
            putIfMissing(parameterized, "Payload", "optional");
        }
        String type = job.path("Type").asText();
        boolean batchLike = type.equals("batch") || type.equals("sysbatch");
        UpdateRules.canonicalize(job, type);
        if (job.get("TaskGroups") instanceof ArrayNode groups) {
            for (JsonNode g : groups) {
                if (g instanceof ObjectNode group) {
                    groupDefaults(group, type, batchLike);
                }
            }
        }
    }

    private static void groupDefaults(ObjectNode group, String type, boolean batchLike) {
        putIfMissing(group, "Count", 1);
        ObjectNode restart = object(group, "RestartPolicy");
        putIfMissing(restart, "Attempts", batchLike ? 3 : 2);
        putIfMissing(restart, "Interval", batchLike ? 24 * HOUR : 30 * MINUTE);
        putIfMissing(restart, "Delay", 15 * SECOND);
        putIfMissing(restart, "Mode", "fail");
        if (!type.equals("system") && !type.equals("sysbatch")) {
            ObjectNode reschedule = object(group, "ReschedulePolicy");
            putIfMissing(reschedule, "Attempts", batchLike ? 1 : 0);
            putIfMissing(reschedule, "Interval", batchLike ? 24 * HOUR : 0L);
            putIfMissing(reschedule, "Delay", batchLike ? 5 * SECOND : 30 * SECOND);
            putIfMissing(reschedule, "DelayFunction", batchLike ? "constant" : "exponential");
            putIfMissing(reschedule, "MaxDelay", batchLike ? 0L : HOUR);
            putIfMissing(reschedule, "Unlimited", !batchLike);
        }
        putIfMissing(object(group, "EphemeralDisk"), "SizeMB", 300);
        disconnectDefaults(group);
        if (group.get("Scaling") instanceof ObjectNode scaling && !scaling.hasNonNull("Min")) {
            scaling.set("Min", group.get("Count")); // Nomad's canonical minimum: the count it was registered with
        }
        if (group.get("Scaling") instanceof ObjectNode scaling) {
            putIfMissing(scaling, "Enabled", true);
        }
        if (group.get("Tasks") instanceof ArrayNode tasks) {
            for (JsonNode t : tasks) {
                if (t instanceof ObjectNode task) {
                    putIfMissing(task, "KillTimeout", 5 * SECOND);
                    ObjectNode logs = object(task, "LogConfig");
                    putIfMissing(logs, "MaxFiles", 10);
                    putIfMissing(logs, "MaxFileSizeMB", 10);
                    ObjectNode resources = object(task, "Resources");
                    putIfMissing(resources, "CPU", 100);
                    putIfMissing(resources, "MemoryMB", 300);
                    TemplateRules.defaults(task);
                    IdentityRules.canonicalize(task);
                }
            }
        }
    }

    /**
     * The {@code disconnect} block as Nomad 1.8–1.9 builds it: the deprecated group fields
     * {@code max_client_disconnect}, {@code stop_after_client_disconnect} and {@code prevent_reschedule_on_lost}
     * become {@code lost_after}, {@code stop_on_client_after} and {@code replace = false} when the group has no
     * {@code disconnect} block of its own; a block gets Nomad's defaults ({@code replace = true},
     * {@code reconcile = "best_score"}).
     */
    private static void disconnectDefaults(ObjectNode group) {
        if (isMissing(group, "Disconnect")) {
            boolean deprecated = !isMissing(group, "MaxClientDisconnect") || !isMissing(group, "StopAfterClientDisconnect")
                    || group.path("PreventRescheduleOnLost").asBoolean(false);
            if (!deprecated) {
                return;
            }
            ObjectNode disconnect = group.putObject("Disconnect");
            copyIfSet(group, "MaxClientDisconnect", disconnect, "LostAfter");
            copyIfSet(group, "StopAfterClientDisconnect", disconnect, "StopOnClientAfter");
            if (group.path("PreventRescheduleOnLost").asBoolean(false)) {
                disconnect.put("Replace", false);
            }
        }
        if (group.get("Disconnect") instanceof ObjectNode disconnect) {
            putIfMissing(disconnect, "Replace", true);
            putIfMissing(disconnect, "Reconcile", "best_score");
        }
    }

    private static void copyIfSet(ObjectNode from, String field, ObjectNode to, String as) {
        if (!isMissing(from, field)) {
            to.set(as, from.get(field));
        }
    }

    /** Every problem, with its path ({@code TaskGroups[0].Tasks[1].Driver}), in the order a reader meets them. */
    static List<String> validate(ObjectNode job, JobLimits limits) {
        List<String> problems = new ArrayList<>();
        String id = job.path("ID").asText("");
        if (id.isEmpty()) {
            problems.add("ID: missing job ID");
        } else if (id.chars().anyMatch(c -> Character.isWhitespace(c) || c == 0)) {
            problems.add("ID: job ID \"" + id + "\" contains a space or a null character");
        }
        if (job.path("Name").asText("").isEmpty()) {
            problems.add("Name: missing job name");
        }
        if (!TYPES.contains(job.path("Type").asText())) {
            problems.add("Type: invalid job type \"" + job.path("Type").asText() + "\"; must be one of service, batch, "
                    + "system, sysbatch");
        }
        range(problems, "Priority", "job priority", job.path("Priority"), 1, limits.maxPriority(),
                " (server job_max_priority)");
        blocks(problems, "", job);
        entries(problems, "Meta", job.path("Meta"));
        periodic(problems, job);
        parameterized(problems, job);
        JsonNode groups = job.path("TaskGroups");
        if (!groups.isArray() || groups.isEmpty()) {
            problems.add("TaskGroups: missing job task groups");
            return problems;
        }
        if (groups.size() > JobLimits.MAX_TASK_GROUPS) {
            problems.add("TaskGroups: " + groups.size() + " task groups exceed the maximum of "
                    + JobLimits.MAX_TASK_GROUPS);
            return problems; // each group would add its own problems: one is enough
        }
        Set<String> groupNames = new HashSet<>();
        double total = 0;
        for (int g = 0; g < groups.size(); g++) {
            JsonNode group = groups.get(g);
            String at = "TaskGroups[" + g + "]";
            String name = group.path("Name").asText("");
            if (name.isEmpty()) {
                problems.add(at + ".Name: missing task group name");
            } else if (!groupNames.add(name)) {
                problems.add(at + ".Name: task group \"" + name + "\" is defined more than once");
            }
            JsonNode count = group.path("Count");
            total += count.isNumber() ? Math.max(0, count.asDouble()) : 0;
            if (!count.isIntegralNumber()) {
                problems.add(at + ".Count: count must be a whole number, not " + count);
            } else if (count.asDouble() < 0) {
                problems.add(at + ".Count: count must be 0 or more, not " + count);
            } else if (count.asDouble() > limits.maxCount()) {
                problems.add(at + ".Count: task group \"" + name + "\" count " + count + " exceeds the maximum of "
                        + limits.maxCount() + " (server job_max_count)");
            }
            JsonNode scaling = group.path("Scaling");
            if (scaling.isObject()) {
                for (String bound : List.of("Min", "Max")) {
                    if (!scaling.path(bound).isMissingNode() && !scaling.path(bound).isNull()) {
                        range(problems, at + ".Scaling." + bound, "scaling " + bound.toLowerCase(Locale.ROOT),
                                scaling.path(bound), 0, limits.maxCount(), " (server job_max_count)");
                    }
                }
                JsonNode min = scaling.path("Min");
                JsonNode max = scaling.path("Max");
                if (min.isNumber() && max.isNumber() && min.asDouble() > max.asDouble()) {
                    problems.add(at + ".Scaling: minimum count " + min + " is more than the maximum " + max);
                }
                if (count.isNumber() && max.isNumber() && count.asDouble() > max.asDouble()) {
                    problems.add(at + ".Count: task group count " + count + " is more than the scaling policy's "
                            + "maximum " + max);
                }
                if (count.isNumber() && min.isNumber() && count.asDouble() < min.asDouble()) {
                    problems.add(at + ".Count: task group count " + count + " is less than the scaling policy's "
                            + "minimum " + min);
                }
            }
            blocks(problems, at + ".", group);
            disconnect(problems, at + ".Disconnect", group.path("Disconnect"));
            UpdateRules.validate(problems, at + ".Update", job.path("Type").asText(), job.path("Update"),
                    group.path("Update"));
            entries(problems, at + ".Meta", group.path("Meta"));
            range(problems, at + ".EphemeralDisk.SizeMB", "ephemeral disk size",
                    group.path("EphemeralDisk").path("SizeMB"), 0, JobLimits.MAX_DISK_MB, "");
            networks(problems, at + ".Networks", group.path("Networks"));
            JsonNode tasks = group.path("Tasks");
            if (!tasks.isArray() || tasks.isEmpty()) {
                problems.add(at + ".Tasks: task group \"" + name + "\" has no tasks");
                continue;
            }
            if (tasks.size() > JobLimits.MAX_TASKS) {
                problems.add(at + ".Tasks: task group \"" + name + "\" has " + tasks.size()
                        + " tasks, more than the maximum of " + JobLimits.MAX_TASKS);
                continue;
            }
            Set<String> taskNames = new HashSet<>();
            for (int t = 0; t < tasks.size(); t++) {
                JsonNode task = tasks.get(t);
                String taskAt = at + ".Tasks[" + t + "]";
                String taskName = task.path("Name").asText("");
                if (taskName.isEmpty()) {
                    problems.add(taskAt + ".Name: missing task name");
                } else if (!taskNames.add(taskName)) {
                    problems.add(taskAt + ".Name: task \"" + taskName + "\" is defined more than once");
                }
                if (task.path("Driver").asText("").isEmpty()) {
                    problems.add(taskAt + ".Driver: missing task driver");
                }
                blocks(problems, taskAt + ".", task);
                JsonNode payloadFile = task.path("DispatchPayload").path("File");
                if (payloadFile.isTextual() && !payloadFile.asText().isEmpty()
                        && !job.path("ParameterizedJob").isObject()) {
                    problems.add(taskAt + ".DispatchPayload: only the tasks of a parameterized job receive a "
                            + "dispatch payload");
                }
                entries(problems, taskAt + ".Meta", task.path("Meta"));
                entries(problems, taskAt + ".Env", task.path("Env"));
                resources(problems, taskAt + ".Resources", task.path("Resources"));
                TemplateRules.validate(problems, taskAt, task);
                IdentityRules.validate(problems, taskAt, task);
            }
            ServiceRules.validate(problems, at, group);
        }
        if (total > limits.maxCount()) {
            problems.add("TaskGroups: the job asks for " + (long) total + " allocations in all, more than the maximum "
                    + "of " + limits.maxCount() + " (server job_max_count)");
        }
        return problems;
    }

    /** Nomad's periodic rules: batch-like jobs only, at least one valid cron, a known time zone. */
    private static void periodic(List<String> problems, JsonNode job) {
        JsonNode periodic = job.path("Periodic");
        if (!periodic.isObject()) {
            return;
        }
        String type = job.path("Type").asText();
        if (periodic.path("Enabled").asBoolean(true) && !type.equals("batch") && !type.equals("sysbatch")) {
            problems.add("Periodic: periodic can only be used with \"batch\" or \"sysbatch\" jobs, not \"" + type
                    + "\"");
        }
        String specType = periodic.path("SpecType").asText("cron");
        if (!specType.equals("cron")) {
            problems.add("Periodic.SpecType: unknown periodic specification type \"" + specType + "\"");
        }
        String spec = periodic.path("Spec").asText("");
        JsonNode specs = periodic.path("Specs");
        boolean many = specs.isArray() && !specs.isEmpty();
        if (spec.isEmpty() && !many) {
            problems.add("Periodic: must specify a spec (cron or crons)");
        } else if (!spec.isEmpty() && many) {
            problems.add("Periodic: only one of cron and crons may be set");
        }
        if (!spec.isEmpty()) {
            cron(problems, "Periodic.Spec", spec);
        }
        for (int i = 0; many && i < specs.size(); i++) {
            cron(problems, "Periodic.Specs[" + i + "]", specs.get(i).asText(""));
        }
        String zone = periodic.path("TimeZone").asText("");
        if (!zone.isEmpty()) {
            try {
                java.time.ZoneId.of(zone);
            } catch (java.time.DateTimeException e) {
                problems.add("Periodic.TimeZone: invalid time zone \"" + zone + "\": " + e.getMessage());
            }
        }
    }

    private static void cron(List<String> problems, String at, String spec) {
        try {
            io.caravan.api.cron.CronExpression.parse(spec);
        } catch (IllegalArgumentException e) {
            problems.add(at + ": invalid cron spec \"" + spec + "\": " + e.getMessage());
        }
    }

    private static final Set<String> PAYLOAD = Set.of("optional", "required", "forbidden");

    /** Nomad's parameterized rules: batch-like jobs only, a known payload rule, no key both required and optional. */
    private static void parameterized(List<String> problems, JsonNode job) {
        JsonNode parameterized = job.path("ParameterizedJob");
        if (!parameterized.isObject() || job.path("Dispatched").asBoolean(false)) {
            return;
        }
        String type = job.path("Type").asText();
        if (!type.equals("batch") && !type.equals("sysbatch")) {
            problems.add("ParameterizedJob: parameterized jobs can only be \"batch\" or \"sysbatch\" jobs, not \""
                    + type + "\"");
        }
        String payload = parameterized.path("Payload").asText("");
        if (!PAYLOAD.contains(payload)) {
            problems.add("ParameterizedJob.Payload: unknown payload requirement \"" + payload + "\" (one of "
                    + "optional, required, forbidden)");
        }
        Set<String> required = new HashSet<>();
        parameterized.path("MetaRequired").forEach(k -> required.add(k.asText()));
        List<String> both = new ArrayList<>();
        parameterized.path("MetaOptional").forEach(k -> {
            if (required.contains(k.asText())) {
                both.add(k.asText());
            }
        });
        if (!both.isEmpty()) {
            problems.add("ParameterizedJob: meta keys " + both + " are both required and optional");
        }
    }

    /** {@link #validate(ObjectNode, JobLimits)} with Nomad's default limits. */
    static List<String> validate(ObjectNode job) {
        return validate(job, JobLimits.DEFAULT);
    }

    /** Lists of blocks that may appear at the job, group and task levels: each at most MAX_BLOCKS long. */
    private static final List<String> BLOCK_LISTS = List.of("Constraints", "Affinities", "Spreads", "Services",
            "Networks", "Artifacts", "Templates", "VolumeMounts");

    private static void blocks(List<String> problems, String at, JsonNode parent) {
        for (String field : BLOCK_LISTS) {
            JsonNode list = parent.path(field);
            if (list.isArray() && list.size() > JobLimits.MAX_BLOCKS) {
                problems.add(at + field + ": " + list.size() + " entries exceed the maximum of "
                        + JobLimits.MAX_BLOCKS);
            }
        }
        JsonNode volumes = parent.path("Volumes");
        if (volumes.isObject() && volumes.size() > JobLimits.MAX_BLOCKS) {
            problems.add(at + "Volumes: " + volumes.size() + " entries exceed the maximum of " + JobLimits.MAX_BLOCKS);
        }
    }

    private static final Set<String> RECONCILE = Set.of("best_score", "keep_original", "keep_replacement",
            "longest_running");

    /** Nomad's disconnect rules: a known reconcile choice; lost_after and stop_on_client_after exclude each other. */
    private static void disconnect(List<String> problems, String at, JsonNode disconnect) {
        if (!disconnect.isObject()) {
            return;
        }
        String reconcile = disconnect.path("Reconcile").asText("");
        if (!reconcile.isEmpty() && !RECONCILE.contains(reconcile)) {
            problems.add(at + ".Reconcile: invalid reconcile option \"" + reconcile + "\" (one of best_score, "
                    + "keep_original, keep_replacement, longest_running)");
        }
        if (disconnect.path("LostAfter").asLong(0) < 0 || disconnect.path("StopOnClientAfter").asLong(0) < 0) {
            problems.add(at + ": durations must not be negative");
        }
        if (disconnect.path("LostAfter").asLong(0) > 0 && disconnect.path("StopOnClientAfter").asLong(0) > 0) {
            problems.add(at + ": lost_after and stop_on_client_after cannot both be set");
        }
    }

    private static void entries(List<String> problems, String at, JsonNode map) {
        if (map.isContainerNode() && map.size() > JobLimits.MAX_ENTRIES) {
            problems.add(at + ": " + map.size() + " entries exceed the maximum of " + JobLimits.MAX_ENTRIES);
        }
    }

    private static void resources(List<String> problems, String at, JsonNode resources) {
        if (!resources.isObject()) {
            return;
        }
        JsonNode memory = resources.path("MemoryMB");
        if (memory.isNumber() && memory.asDouble() < JobLimits.MIN_MEMORY_MB) {
            problems.add(at + ".MemoryMB: must be at least " + JobLimits.MIN_MEMORY_MB + ", not " + memory);
        } else {
            range(problems, at + ".MemoryMB", "memory", memory, JobLimits.MIN_MEMORY_MB, JobLimits.MAX_MEMORY_MB, "");
        }
        range(problems, at + ".MemoryMaxMB", "maximum memory", resources.path("MemoryMaxMB"), 0,
                JobLimits.MAX_MEMORY_MB, "");
        boolean cores = resources.path("Cores").asDouble(0) > 0;
        range(problems, at + ".CPU", "cpu", resources.path("CPU"), cores ? 0 : 1, JobLimits.MAX_CPU_MHZ, "");
        range(problems, at + ".Cores", "cores", resources.path("Cores"), 0, JobLimits.MAX_CORES, "");
        range(problems, at + ".DiskMB", "disk", resources.path("DiskMB"), 0, JobLimits.MAX_DISK_MB, "");
        networks(problems, at + ".Networks", resources.path("Networks"));
    }

    /** Every port a network asks for: a number a socket can have ({@code To} -1: the same as the host's). */
    private static void networks(List<String> problems, String at, JsonNode networks) {
        if (!networks.isArray()) {
            return;
        }
        for (int n = 0; n < networks.size(); n++) {
            for (String kind : List.of("ReservedPorts", "DynamicPorts")) {
                JsonNode ports = networks.get(n).path(kind);
                String portsAt = at + "[" + n + "]." + kind;
                if (!ports.isArray()) {
                    continue;
                }
                if (ports.size() > JobLimits.MAX_ENTRIES) {
                    problems.add(portsAt + ": " + ports.size() + " entries exceed the maximum of "
                            + JobLimits.MAX_ENTRIES);
                    continue;
                }
                for (int p = 0; p < ports.size(); p++) {
                    range(problems, portsAt + "[" + p + "].Value", "port", ports.get(p).path("Value"), 0, 65535, "");
                    range(problems, portsAt + "[" + p + "].To", "port", ports.get(p).path("To"), -1, 65535, "");
                }
            }
        }
    }

    /** A whole number in [min, max] if present; {@code source} names the setting that chose the maximum. */
    private static void range(List<String> problems, String at, String what, JsonNode value, long min, long max,
                              String source) {
        if (value.isMissingNode() || value.isNull()) {
            return;
        }
        if (!value.isIntegralNumber()) {
            problems.add(at + ": " + what + " must be a whole number, not " + value);
        } else if (value.asDouble() < min || value.asDouble() > max) {
            problems.add(at + ": " + what + " must be between " + min + " and " + max + source + ", not " + value);
        }
    }

    private static boolean isMissing(ObjectNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() || v.isTextual() && v.asText().isEmpty();
    }

    static void putIfMissing(ObjectNode node, String field, Object value) {
        if (!isMissing(node, field)) {
            return;
        }
        node.set(field, NomadJson.mapper().valueToTree(value));
    }

    private static ObjectNode object(ObjectNode parent, String field) {
        JsonNode existing = parent.get(field);
        return existing instanceof ObjectNode o ? o : parent.putObject(field);
    }
}
