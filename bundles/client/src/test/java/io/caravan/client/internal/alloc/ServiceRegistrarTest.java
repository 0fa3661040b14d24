package io.caravan.client.internal.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.api.model.ServiceRegistration;
import io.caravan.client.internal.testing.Fixtures;
import io.caravan.client.internal.testing.InMemoryNodeEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Registrations reach the servers once they answer, and the last word on an ID wins. */
class ServiceRegistrarTest {
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final InMemoryNodeEndpoint server = new InMemoryNodeEndpoint();
    private final ServiceRegistrar registrar = new ServiceRegistrar(scheduler,
            () -> new AllocUpdateBatcher.Target(server, "node-1", "secret"));

    @AfterEach
    void stop() throws Exception {
        scheduler.shutdownNow();
        server.close();
    }

    private static ServiceRegistration reg(String alloc, String name) {
        return new ServiceRegistration(ServiceRegistration.allocServiceId(alloc, "t", name, "http"), name,
                "default", "node-1", null, "job", alloc, List.of(), "127.0.0.1", 1234, 0, 0);
    }

    @Test
    void aRegistrationMadeWhileTheServersAreUnreachableArrivesLater() {
        server.unreachable(true);
        registrar.register("a1", List.of(reg("a1", "api"), reg("a1", "admin")));
        registrar.deregister(List.of(reg("a1", "admin").id()));
        Fixtures.await(Duration.ofSeconds(2), "a failed attempt", () -> true);
        server.unreachable(false);
        Fixtures.await(Duration.ofSeconds(10), "the registration to arrive",
                () -> server.services.containsKey(reg("a1", "api").id()));
        assertEquals(Map.of(reg("a1", "api").id(), reg("a1", "api")), Map.copyOf(server.services));
        registrar.deregisterAlloc("a1");
        Fixtures.await(Duration.ofSeconds(10), "the alloc's services to go", server.services::isEmpty);
    }
}
