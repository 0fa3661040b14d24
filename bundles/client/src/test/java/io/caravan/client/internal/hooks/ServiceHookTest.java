package io.caravan.client.internal.hooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.caravan.api.json.NomadJson;
import io.caravan.api.model.AllocDeploymentStatus;
import io.caravan.api.model.AllocatedResources;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.client.internal.alloc.ServiceRegistrar;
import io.caravan.client.internal.alloc.TaskEvents;
import io.caravan.client.internal.testing.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the client registers for a running task: names interpolated, ports resolved, canary tags, and removal. */
class ServiceHookTest {
    @TempDir
    Path dir;

    private final List<ServiceRegistration> registered = new ArrayList<>();
    private final List<String> removed = new ArrayList<>();
    private final ServiceRegistrar recorder = new ServiceRegistrar(null, () -> null) {
        @Override
        public void register(String allocId, List<ServiceRegistration> services) {
            registered.addAll(services);
        }

        @Override
        public void deregister(List<String> ids) {
            removed.addAll(ids);
        }
    };

    private Allocation alloc(boolean canary) {
        Map<String, Object> task = new LinkedHashMap<>(Fixtures.shTask("server", "sleep 1"));
        task.put("Services", List.of(Map.of("Name", "${NOMAD_JOB_NAME}-api", "PortLabel", "http",
                "Tags", List.of("v1", "node-${node.unique.name}"), "CanaryTags", List.of("canary"))));
        Allocation a = Fixtures.alloc("node-1", "web", "service", Map.of("Services", List.of(
                Map.of("Name", "web-admin", "PortLabel", "admin", "AddressMode", "alloc"),
                Map.of("Name", "web-fixed", "PortLabel", "9999"))), task);
        AllocatedResources resources = NomadJson.mapper().convertValue(Map.of("Shared", Map.of(
                "Networks", List.of(Map.of("IP", "10.1.2.3")),
                "Ports", List.of(Map.of("Label", "http", "Value", 23456, "To", 0, "HostIP", "10.1.2.3"),
                        Map.of("Label", "admin", "Value", 23457, "To", 8080, "HostIP", "10.1.2.3")))),
                AllocatedResources.class);
        return a.toBuilder().allocatedResources(resources)
                .deploymentStatus(canary ? new AllocDeploymentStatus(null, null, true, 0) : null).build();
    }

    private TaskHookContext context(Allocation alloc) {
        TaskHookContext ctx = new TaskHookContext(alloc, alloc.lookupTaskGroup().tasks().get(0),
                Fixtures.node("node-1", Map.of(), Map.of()), AllocDir.of(dir, alloc.id()),
                new TaskEvents(Clock.systemUTC()), e -> { });
        ctx.env(Map.of("NOMAD_JOB_NAME", "web"));
        return ctx;
    }

    private ServiceRegistration named(String name) {
        return registered.stream().filter(r -> r.serviceName().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aRunningTaskRegistersItsAndItsGroupsServicesAtTheAllocatedAddress() {
        Allocation alloc = alloc(false);
        ServiceHook hook = new ServiceHook(recorder);
        hook.poststart(context(alloc));
        assertEquals(3, registered.size());
        ServiceRegistration api = named("web-api");
        assertEquals(ServiceRegistration.ID_PREFIX + alloc.id() + "-server-web-api-http", api.id());
        assertEquals("10.1.2.3", api.address());
        assertEquals(23456, api.port());
        assertEquals(List.of("v1", "node-" + Fixtures.node("node-1", Map.of(), Map.of()).name()), api.tags());
        assertEquals(alloc.id(), api.allocId());
        assertEquals(8080, named("web-admin").port(), "address_mode alloc: the mapped port");
        assertTrue(named("web-admin").id().contains("-group-web-admin-admin"));
        assertEquals(9999, named("web-fixed").port(), "a numeric port as written");

        hook.stop(context(alloc));
        assertEquals(List.of(api.id()), removed, "the task's own services go when it stops; the group's stay");
    }

    @Test
    void aCanaryRegistersItsCanaryTags() {
        new ServiceHook(recorder).poststart(context(alloc(true)));
        assertEquals(List.of("canary"), named("web-api").tags());
        assertEquals(List.of(), named("web-admin").tags());
    }
}
