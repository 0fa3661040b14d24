package io.caravan.console.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.agent.AgentConfigService;
import io.caravan.agent.AgentInfo;
import io.caravan.agent.LastReload;
import io.caravan.agent.UnsupportedKey;
import io.caravan.plugin.api.driver.DriverHealth;
import io.caravan.plugin.api.driver.TaskDriver;
import io.caravan.plugin.api.fingerprint.Fingerprinter;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/** Gathers a {@link CaravanView}: local facts from OSGi services, cluster facts through {@link ClusterApi}. */
final class ConsoleData {
    static final String DRIVER_NAME = "caravan.driver.name";
    static final String FINGERPRINT_NAME = "caravan.fingerprint.name";
    private static final List<String> PLUGIN_PREFIXES = List.of("io.caravan.driver.", "io.caravan.fingerprint.");

    private ConsoleData() {
    }

    static CaravanView collect(BundleContext context, AgentInfo agent, AgentConfigService config, ClusterApi api) {
        Map<String, String> problems = new LinkedHashMap<>();
        CaravanView.Agent self = agent == null ? null : new CaravanView.Agent(agent.name(), role(agent),
                agent.region(), agent.datacenter(), agent.version(), agent.nodeId(), agent.devMode());
        if (agent == null) {
            problems.put("agent", "the agent has not read its configuration yet");
        }
        boolean client = agent != null && agent.client();
        CompletableFuture<JsonNode> leader = api.get("/v1/status/leader");
        CompletableFuture<JsonNode> raft = api.get("/v1/operator/raft/configuration");
        CompletableFuture<JsonNode> node = client ? api.get("/v1/node/" + agent.nodeId()) : null;

        String leaderAddress = read(leader, "leader", problems).map(JsonNode::asText).orElse("");
        List<CaravanView.Peer> peers = new ArrayList<>();
        read(raft, "peers", problems).ifPresent(r -> r.path("Servers").forEach(s -> peers.add(new CaravanView.Peer(
                s.path("ID").asText(), s.path("Node").asText(), s.path("Address").asText(),
                s.path("Leader").asBoolean(), s.path("Voter").asBoolean()))));
        Optional<JsonNode> nodeJson = node == null ? Optional.empty() : read(node, "node", problems);
        CaravanView.NodeState nodeState = nodeJson.map(n -> new CaravanView.NodeState(n.path("ID").asText(),
                n.path("Name").asText(), n.path("Status").asText(), n.path("SchedulingEligibility").asText(),
                n.path("Drain").asBoolean())).orElse(null);

        List<CaravanView.Plugin> drivers = new ArrayList<>();
        List<CaravanView.Plugin> fingerprinters = new ArrayList<>();
        for (Bundle bundle : context.getBundles()) {
            boolean any = false;
            for (ServiceReference<?> ref : registered(bundle)) {
                Object driverName = ref.getProperty(DRIVER_NAME);
                Object fingerprintName = ref.getProperty(FINGERPRINT_NAME);
                if (driverName != null && isA(ref, TaskDriver.class)) {
                    drivers.add(driver(context, bundle, ref, driverName.toString(), nodeJson));
                    any = true;
                } else if (fingerprintName != null && isA(ref, Fingerprinter.class)) {
                    fingerprinters.add(plugin(fingerprintName.toString(), bundle, true, true, "Service registered"));
                    any = true;
                }
            }
            String name = Optional.ofNullable(bundle.getSymbolicName()).orElse("");
            if (!any && bundle.getState() != Bundle.ACTIVE && PLUGIN_PREFIXES.stream().anyMatch(name::startsWith)) {
                // A stopped plugin bundle offers nothing, which is exactly what the operator should see.
                (name.startsWith("io.caravan.driver.") ? drivers : fingerprinters)
                        .add(plugin(name, bundle, false, false, "Bundle not active: no service"));
            }
        }
        drivers.sort(Comparator.comparing(CaravanView.Plugin::name));
        fingerprinters.sort(Comparator.comparing(CaravanView.Plugin::name));
        CaravanView.Reload reload = config == null ? null : config.lastReload().map(ConsoleData::reload).orElse(null);
        return new CaravanView(self, leaderAddress, peers, nodeState, drivers, fingerprinters, reload, problems);
    }

    static String role(AgentInfo agent) {
        return agent.server() && agent.client() ? "server+client" : agent.server() ? "server" : "client";
    }

    private static ServiceReference<?>[] registered(Bundle bundle) {
        ServiceReference<?>[] refs = bundle.getRegisteredServices();
        return refs == null ? new ServiceReference<?>[0] : refs;
    }

    private static boolean isA(ServiceReference<?> ref, Class<?> type) {
        Object classes = ref.getProperty("objectClass");
        return classes instanceof String[] names && List.of(names).contains(type.getName());
    }

    /** The node's view of the driver when the node is known, else the driver's own. */
    private static CaravanView.Plugin driver(BundleContext context, Bundle bundle, ServiceReference<?> ref,
                                             String name, Optional<JsonNode> node) {
        Optional<JsonNode> reported = node.map(n -> n.path("Drivers").path(name)).filter(d -> !d.isMissingNode());
        if (reported.isPresent()) {
            JsonNode d = reported.get();
            return plugin(name, bundle, d.path("Detected").asBoolean(), d.path("Healthy").asBoolean(),
                    d.path("HealthDescription").asText());
        }
        Object service = context.getService(ref);
        try {
            if (service instanceof TaskDriver driver) {
                DriverHealth health = driver.health();
                return plugin(name, bundle, health.state() != DriverHealth.State.UNDETECTED,
                        health.state() == DriverHealth.State.HEALTHY, health.description());
            }
            return plugin(name, bundle, false, false, "driver service unavailable");
        } catch (RuntimeException e) {
            return plugin(name, bundle, false, false, "health check failed: " + e.getMessage());
        } finally {
            context.ungetService(ref);
        }
    }

    private static CaravanView.Plugin plugin(String name, Bundle bundle, boolean detected, boolean healthy,
                                             String description) {
        return new CaravanView.Plugin(name, bundle.getSymbolicName(), bundle.getVersion().toString(),
                state(bundle.getState()), detected, healthy, description);
    }

    static String state(int state) {
        return switch (state) {
            case Bundle.ACTIVE -> "active";
            case Bundle.RESOLVED -> "resolved";
            case Bundle.INSTALLED -> "installed";
            case Bundle.STARTING -> "starting";
            case Bundle.STOPPING -> "stopping";
            default -> "uninstalled";
        };
    }

    private static CaravanView.Reload reload(LastReload last) {
        if (!last.succeeded()) {
            return new CaravanView.Reload(last.at().toString(), List.of(), List.of(), List.of(), List.of(),
                    last.error());
        }
        return new CaravanView.Reload(last.at().toString(), last.report().changed(), last.report().applied(),
                last.report().restartRequired(), last.report().unsupported().stream().map(UnsupportedKey::key).toList(),
                null);
    }

    /** The answer, or empty with the reason recorded under {@code part}. */
    private static Optional<JsonNode> read(CompletableFuture<JsonNode> call, String part, Map<String, String> problems) {
        try {
            return Optional.of(call.join());
        } catch (CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            problems.put(part, cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage());
            return Optional.empty();
        }
    }
}
