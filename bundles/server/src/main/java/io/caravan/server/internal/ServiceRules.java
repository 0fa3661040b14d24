package io.caravan.server.internal;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.model.Service;
import io.caravan.api.model.ServiceCheck;

/**
 * The registration-time rules of a group's {@code service} and {@code check} blocks (group and task level), as
 * Nomad's job validation has them, for what Caravan runs: {@code provider = "nomad"} only (no Consul can be reached
 * here, so {@code "consul"} is refused rather than accepted and ignored), the check types the client runs, a port
 * that the group or task declares, and a positive interval and timeout.
 */
final class ServiceRules {
    static final Duration MIN_CHECK_INTERVAL = Duration.ofSeconds(1);
    static final Duration MIN_CHECK_TIMEOUT = Duration.ofSeconds(1);
    private static final List<String> CHECK_TYPES = List.of(ServiceCheck.TYPE_HTTP, ServiceCheck.TYPE_TCP,
            ServiceCheck.TYPE_SCRIPT);

    private ServiceRules() {
    }

    static void validate(List<String> problems, String groupAt, JsonNode group) {
        Set<String> groupPorts = labels(group.path("Networks"));
        services(problems, groupAt + ".Services", group.path("Services"), groupPorts, true);
        JsonNode tasks = group.path("Tasks");
        for (int t = 0; tasks.isArray() && t < tasks.size(); t++) {
            JsonNode task = tasks.get(t);
            Set<String> ports = new HashSet<>(groupPorts);
            ports.addAll(labels(task.path("Resources").path("Networks")));
            services(problems, groupAt + ".Tasks[" + t + "].Services", task.path("Services"), ports, false);
        }
    }

    private static Set<String> labels(JsonNode networks) {
        Set<String> out = new HashSet<>();
        for (JsonNode n : networks.isArray() ? networks : List.<JsonNode>of()) {
            for (String kind : List.of("ReservedPorts", "DynamicPorts")) {
                n.path(kind).forEach(p -> out.add(p.path("Label").asText("")));
            }
        }
        return out;
    }

    private static void services(List<String> problems, String at, JsonNode services, Set<String> ports,
                                 boolean groupLevel) {
        for (int i = 0; services.isArray() && i < services.size(); i++) {
            JsonNode s = services.get(i);
            String sAt = at + "[" + i + "]";
            String provider = s.path("Provider").asText("");
            if (Service.PROVIDER_CONSUL.equals(provider)) {
                problems.add(sAt + ".Provider: provider \"consul\" is not supported: there is no Consul "
                        + "integration; use provider \"nomad\" (Nomad's native service discovery)");
                continue;
            }
            if (!provider.isEmpty() && !Service.PROVIDER_NOMAD.equals(provider)) {
                problems.add(sAt + ".Provider: service provider must be \"nomad\", not \"" + provider + "\"");
                continue;
            }
            String onUpdate = s.path("OnUpdate").asText("");
            onUpdate(problems, sAt + ".OnUpdate", onUpdate);
            String servicePort = s.path("PortLabel").asText("");
            port(problems, sAt + ".PortLabel", servicePort, ports);
            JsonNode checks = s.path("Checks");
            for (int c = 0; checks.isArray() && c < checks.size(); c++) {
                check(problems, sAt + ".Checks[" + c + "]", checks.get(c), servicePort, ports, groupLevel);
            }
        }
    }

    private static void check(List<String> problems, String at, JsonNode c, String servicePort, Set<String> ports,
                              boolean groupLevel) {
        String type = c.path("Type").asText("");
        if (!CHECK_TYPES.contains(type)) {
            problems.add(at + ".Type: check type \"" + type + "\" is not run; must be one of \"http\", \"tcp\", "
                    + "\"script\"");
            return;
        }
        duration(problems, at + ".Interval", "interval", c.path("Interval"), MIN_CHECK_INTERVAL);
        duration(problems, at + ".Timeout", "timeout", c.path("Timeout"), MIN_CHECK_TIMEOUT);
        onUpdate(problems, at + ".OnUpdate", c.path("OnUpdate").asText(""));
        if (ServiceCheck.TYPE_SCRIPT.equals(type)) {
            if (c.path("Command").asText("").isEmpty()) {
                problems.add(at + ".Command: a script check needs a command");
            }
            if (groupLevel && c.path("TaskName").asText("").isEmpty()) {
                problems.add(at + ".TaskName: a script check of a group service must name the task it runs in");
            }
            return;
        }
        String label = c.path("PortLabel").asText("");
        if (label.isEmpty()) {
            label = servicePort;
        }
        if (label.isEmpty()) {
            problems.add(at + ".PortLabel: a " + type + " check needs a port: set port on the check or its service");
            return;
        }
        port(problems, at + ".PortLabel", label, ports);
        String protocol = c.path("Protocol").asText("");
        if (ServiceCheck.TYPE_HTTP.equals(type) && !protocol.isEmpty() && !protocol.equals("http")
                && !protocol.equals("https")) {
            problems.add(at + ".Protocol: must be \"http\" or \"https\", not \"" + protocol + "\"");
        }
    }

    private static void port(List<String> problems, String at, String label, Set<String> ports) {
        if (!label.isEmpty() && !label.contains("${") && !label.matches("\\d+") && !ports.contains(label)) {
            problems.add(at + ": port label \"" + label + "\" is not declared in a network block of the group "
                    + "or task");
        }
    }

    private static void onUpdate(List<String> problems, String at, String value) {
        if (!value.isEmpty() && !List.of(Service.ON_UPDATE_REQUIRE_HEALTHY, Service.ON_UPDATE_IGNORE_WARNINGS,
                Service.ON_UPDATE_IGNORE).contains(value)) {
            problems.add(at + ": on_update must be \"require_healthy\", \"ignore_warnings\" or \"ignore\", not \""
                    + value + "\"");
        }
    }

    private static void duration(List<String> problems, String at, String what, JsonNode nanos, Duration min) {
        if (nanos.isMissingNode() || nanos.isNull() || nanos.asLong() < min.toNanos()) {
            problems.add(at + ": missing required value " + what + "; it cannot be less than " + min.toSeconds()
                    + "s");
        }
    }
}
