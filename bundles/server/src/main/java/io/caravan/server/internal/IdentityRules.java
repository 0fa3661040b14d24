package io.caravan.server.internal;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A task's {@code Identity} and {@code Identities} as Nomad's job registration canonicalises and validates them: the
 * default identity is named {@code default} and only ever for Nomad's audience; names are unique and well formed;
 * {@code change_signal} goes with {@code change_mode = "signal"} and only with it.
 */
final class IdentityRules {
    static final String CHANGE_NOOP = "noop";
    static final String CHANGE_RESTART = "restart";
    static final String CHANGE_SIGNAL = "signal";
    private static final Pattern NAME = Pattern.compile("^[a-zA-Z0-9-_]{1,128}$");

    private IdentityRules() {
    }

    /** Nomad's canonical form: the default identity's name and audience, signals in upper case. */
    static void canonicalize(ObjectNode task) {
        if (task.get("Identity") instanceof ObjectNode id) {
            id.put("Name", WorkloadIdentities.DEFAULT_NAME);
            id.putArray("Audience").add(WorkloadIdentities.DEFAULT_AUDIENCE);
            upperSignal(id);
        }
        if (task.get("Identities") instanceof ArrayNode all) {
            for (JsonNode each : all) {
                if (each instanceof ObjectNode id) {
                    if (id.path("Name").asText("").isEmpty()) {
                        id.put("Name", WorkloadIdentities.DEFAULT_NAME);
                    }
                    upperSignal(id);
                }
            }
        }
    }

    private static void upperSignal(ObjectNode id) {
        String signal = id.path("ChangeSignal").asText("");
        if (!signal.isEmpty()) {
            id.put("ChangeSignal", signal.toUpperCase(Locale.ROOT));
        }
    }

    static void validate(List<String> problems, String taskAt, JsonNode task) {
        Set<String> names = new HashSet<>();
        if (task.path("Identity").isObject()) {
            identity(problems, taskAt + ".Identity", task.get("Identity"), names);
        }
        JsonNode all = task.path("Identities");
        for (int i = 0; all.isArray() && i < all.size(); i++) {
            identity(problems, taskAt + ".Identities[" + i + "]", all.get(i), names);
        }
    }

    private static void identity(List<String> problems, String at, JsonNode id, Set<String> names) {
        String name = id.path("Name").asText("");
        if (!NAME.matcher(name).matches()) {
            problems.add(at + ".Name: invalid name \"" + name + "\". Must match regex " + NAME.pattern());
        } else if (!names.add(name)) {
            problems.add(at + ".Name: duplicate identity name \"" + name + "\"");
        }
        JsonNode audience = id.path("Audience");
        for (int i = 0; audience.isArray() && i < audience.size(); i++) {
            if (audience.get(i).asText("").isEmpty()) {
                problems.add(at + ".Audience: an empty string is an invalid audience (" + (i + 1) + ")");
            }
        }
        String mode = id.path("ChangeMode").asText("");
        String signal = id.path("ChangeSignal").asText("");
        switch (mode) {
            case "", CHANGE_NOOP, CHANGE_RESTART -> {
                if (!signal.isEmpty()) {
                    problems.add(at + ".ChangeSignal: can only use change_signal=\"" + signal
                            + "\" with change_mode=\"signal\"");
                }
            }
            case CHANGE_SIGNAL -> {
                if (signal.isEmpty()) {
                    problems.add(at + ".ChangeSignal: change_signal must be specified when using "
                            + "change_mode=\"signal\"");
                }
            }
            default -> problems.add(at + ".ChangeMode: invalid change_mode \"" + mode
                    + "\"; must be one of noop, restart, signal");
        }
        if (id.path("TTL").isNumber() && id.path("TTL").asLong() < 0) {
            problems.add(at + ".TTL: ttl must not be negative");
        }
    }
}
