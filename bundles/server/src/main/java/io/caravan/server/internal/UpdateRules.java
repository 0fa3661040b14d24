package io.caravan.server.internal;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.caravan.api.GoDuration;
import io.caravan.api.json.NomadJson;

/**
 * The {@code update} blocks as Nomad's job registration treats them. The API's canonical form
 * ({@link #canonicalize}): a service or system job without a job-level block gets Nomad's default strategy, a block
 * gets the fields it leaves out from it, and each group gets the job's strategy under its own fields (a group
 * without a block inherits the job's unless that is empty). The stored form ({@link #stored}): the job level keeps
 * only {@code Stagger} and {@code MaxParallel}, the rest lives in the groups. Validation checks each group's block,
 * the one its deployment uses.
 */
final class UpdateRules {
    private static final long SECOND = 1_000_000_000L;
    /** Nomad's {@code DefaultUpdateStrategy}, in the API's JSON (durations in nanoseconds), in its field order. */
    private static final Map<String, Object> DEFAULTS = defaults();
    private static final Set<String> HEALTH_CHECKS = Set.of("checks", "task_states", "manual");

    private UpdateRules() {
    }

    private static Map<String, Object> defaults() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("Stagger", 30 * SECOND);
        d.put("MaxParallel", 1);
        d.put("HealthCheck", "checks");
        d.put("MinHealthyTime", 10 * SECOND);
        d.put("HealthyDeadline", 300 * SECOND);
        d.put("ProgressDeadline", 600 * SECOND);
        d.put("Canary", 0);
        d.put("AutoRevert", false);
        d.put("AutoPromote", false);
        return d;
    }

    /** Nomad's {@code Job.Canonicalize} and {@code TaskGroup.Canonicalize} for the update blocks. */
    static void canonicalize(ObjectNode job, String type) {
        ObjectNode jobUpdate = job.get("Update") instanceof ObjectNode u ? u : null;
        if (jobUpdate != null) {
            fill(jobUpdate);
        } else if (type.equals("service") || type.equals("system")) {
            jobUpdate = job.putObject("Update");
            fill(jobUpdate);
        }
        if (!(job.get("TaskGroups") instanceof ArrayNode groups)) {
            return;
        }
        for (JsonNode g : groups) {
            if (!(g instanceof ObjectNode group)) {
                continue;
            }
            ObjectNode own = group.get("Update") instanceof ObjectNode u ? u : null;
            if (jobUpdate != null && own != null) {
                ObjectNode merged = jobUpdate.deepCopy();
                own.properties().forEach(e -> {
                    if (!e.getValue().isNull()) {
                        merged.set(e.getKey(), e.getValue());
                    }
                });
                group.set("Update", merged);
            } else if (jobUpdate != null && !isEmpty(jobUpdate)) {
                group.set("Update", jobUpdate.deepCopy());
            }
            if (group.get("Update") instanceof ObjectNode update) {
                fill(update);
            }
        }
    }

    /**
     * The job-level block as Nomad stores it (its agent's {@code ApiJobToStructJob}): {@code Stagger} and
     * {@code MaxParallel} when {@code MaxParallel > 0}, every other field zero; all zero otherwise (a job with no
     * rolling update at its level, batch jobs included: the stored field is never absent).
     */
    static void stored(ObjectNode job) {
        JsonNode update = job.path("Update");
        ObjectNode zero = JsonNodeFactory.instance.objectNode();
        zero.put("Stagger", 0L);
        zero.put("MaxParallel", 0);
        zero.put("HealthCheck", "");
        zero.put("MinHealthyTime", 0L);
        zero.put("HealthyDeadline", 0L);
        zero.put("ProgressDeadline", 0L);
        zero.put("Canary", 0);
        zero.put("AutoRevert", false);
        zero.put("AutoPromote", false);
        if (update.path("MaxParallel").asLong(0) > 0) {
            zero.set("MaxParallel", update.get("MaxParallel"));
            if (update.hasNonNull("Stagger")) {
                zero.set("Stagger", update.get("Stagger"));
            }
        }
        job.set("Update", zero);
    }

    /**
     * Nomad's rule for inheriting the job's block: empty when every field is unset, zero, empty or false (after
     * {@link #fill} only a block whose every field was written as zero).
     */
    static boolean isEmpty(JsonNode update) {
        for (Iterator<JsonNode> it = update.elements(); it.hasNext(); ) {
            JsonNode v = it.next();
            if (v.isNumber() && v.asDouble() != 0 || v.isTextual() && !v.asText().isEmpty()
                    || v.isBoolean() && v.asBoolean()) {
                return false;
            }
        }
        return true;
    }

    private static void fill(ObjectNode update) {
        DEFAULTS.forEach((field, value) -> {
            JsonNode v = update.get(field);
            if (v == null || v.isNull()) {
                update.set(field, NomadJson.mapper().valueToTree(value)); // "" is a value here, as in Nomad
            }
        });
    }

    /**
     * Nomad's {@code UpdateStrategy.Validate} and its type rule on a group's block, with the job's fields under it
     * (a canonical group has them already; a raw one, as validate sees it, merges here), over Nomad's defaults.
     * A group without a block has no strategy to check.
     */
    static void validate(List<String> problems, String at, String type, JsonNode job, JsonNode group) {
        if (!group.isObject()) {
            return;
        }
        if (type.equals("batch") || type.equals("sysbatch")) {
            problems.add(at + ": job type \"" + type + "\" does not allow update block");
        }
        java.util.function.Function<String, JsonNode> field = name -> {
            JsonNode v = group.path(name);
            if (v.isMissingNode() || v.isNull()) {
                v = job.path(name);
            }
            return v.isMissingNode() || v.isNull() ? NomadJson.mapper().valueToTree(DEFAULTS.get(name)) : v;
        };
        String healthCheck = field.apply("HealthCheck").asText();
        if (!HEALTH_CHECKS.contains(healthCheck)) {
            problems.add(at + ".HealthCheck: invalid health check given: \"" + healthCheck
                    + "\" (one of checks, task_states, manual)");
        }
        long maxParallel = field.apply("MaxParallel").asLong();
        long canary = field.apply("Canary").asLong();
        Duration stagger = Duration.ofNanos(field.apply("Stagger").asLong());
        Duration minHealthy = Duration.ofNanos(field.apply("MinHealthyTime").asLong());
        Duration healthy = Duration.ofNanos(field.apply("HealthyDeadline").asLong());
        Duration progress = Duration.ofNanos(field.apply("ProgressDeadline").asLong());
        boolean autoPromote = field.apply("AutoPromote").asBoolean();
        if (maxParallel < 0) {
            problems.add(at + ".MaxParallel: max parallel can not be less than zero: " + maxParallel + " < 0");
        }
        if (canary < 0) {
            problems.add(at + ".Canary: canary count can not be less than zero: " + canary + " < 0");
        }
        if (canary == 0 && autoPromote) {
            problems.add(at + ".AutoPromote: auto promote requires a canary count greater than zero");
        }
        if (minHealthy.isNegative()) {
            problems.add(at + ".MinHealthyTime: minimum healthy time may not be less than zero: "
                    + GoDuration.format(minHealthy));
        }
        if (healthy.isNegative() || healthy.isZero()) {
            problems.add(at + ".HealthyDeadline: healthy deadline must be greater than zero: "
                    + GoDuration.format(healthy));
        }
        if (progress.isNegative()) {
            problems.add(at + ".ProgressDeadline: progress deadline must be zero or greater: "
                    + GoDuration.format(progress));
        }
        if (minHealthy.compareTo(healthy) >= 0) {
            problems.add(at + ".MinHealthyTime: minimum healthy time must be less than healthy deadline: "
                    + GoDuration.format(minHealthy) + " > " + GoDuration.format(healthy));
        }
        if (!progress.isZero() && healthy.compareTo(progress) >= 0) {
            problems.add(at + ".HealthyDeadline: healthy deadline must be less than progress deadline: "
                    + GoDuration.format(healthy) + " > " + GoDuration.format(progress));
        }
        if (stagger.isNegative() || stagger.isZero()) {
            problems.add(at + ".Stagger: stagger must be greater than zero: " + GoDuration.format(stagger));
        }
    }
}
