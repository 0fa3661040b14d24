package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.api.CaravanException;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.state.StateStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Service registrations through the log: upsert by ID, delete, and the cleanup of stopped allocs and down nodes. */
class ServiceRegistrationsTest {
    private static final long T0 = 1_000_000_000_000L;
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final StateStore store = StateStore.create(NomadTables.ALL, timers, timers);
    private final Fsm fsm = new Fsm(store);

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    private Command.Result apply(long index, Command c) {
        c.validate();
        return fsm.apply(index, CommandCodec.decode(CommandCodec.encode(c)));
    }

    /** Node n with allocations a1 and a2 of job web, placed at index 3. */
    private void place() throws Exception {
        apply(1, new Command.NodeRegister(NodeLifecycleTest.node("n", "ready"), List.of()));
        Job job = FsmTest.job("web", 50);
        apply(2, new Command.JobRegister(job, Evaluation.forJob("e", job, "job-register", 0), false, 0));
        Job stored = store.snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow();
        apply(3, new Command.PlanApply("e", stored, List.of(), List.of(DeploymentApplyTest.alloc("a1", null, false),
                DeploymentApplyTest.alloc("a2", null, false)), T0, null, List.of()));
    }

    static ServiceRegistration reg(String alloc, String name, int port) {
        return new ServiceRegistration(ServiceRegistration.allocServiceId(alloc, "web", name, "http"), name,
                "default", "n", "dc1", "web", alloc, List.of("v1"), "127.0.0.1", port, 0, 0);
    }

    private List<ServiceRegistration> byName(String name) {
        return store.snapshot().byIndex(NomadTables.SERVICE_REGISTRATIONS, "service", "default\0" + name).toList();
    }

    @Test
    void anUpsertSetsIndexesAndAnUnchangedOneKeepsThem() throws Exception {
        place();
        apply(4, new Command.ServiceRegistrationUpsert(List.of(reg("a1", "api", 8080), reg("a2", "api", 8081))));
        assertEquals(2, byName("api").size());
        assertEquals(4, byName("api").get(0).createIndex());
        apply(5, new Command.ServiceRegistrationUpsert(List.of(reg("a1", "api", 8080))));
        ServiceRegistration a1 = store.snapshot().get(NomadTables.SERVICE_REGISTRATIONS,
                reg("a1", "api", 0).id()).orElseThrow();
        assertEquals(4, a1.modifyIndex(), "unchanged: indexes stay");
        apply(6, new Command.ServiceRegistrationUpsert(List.of(reg("a1", "api", 9090))));
        a1 = store.snapshot().get(NomadTables.SERVICE_REGISTRATIONS, a1.id()).orElseThrow();
        assertEquals(4, a1.createIndex());
        assertEquals(6, a1.modifyIndex());
        assertEquals(9090, a1.port());
        apply(7, new Command.ServiceRegistrationDelete(List.of(a1.id(), "unknown")));
        assertEquals(1, byName("api").size());
    }

    @Test
    void aTerminalAllocLosesItsServicesAndAStoppedOneCannotRegister() throws Exception {
        place();
        apply(4, new Command.ServiceRegistrationUpsert(List.of(reg("a1", "api", 8080), reg("a2", "api", 8081))));
        Allocation done = DeploymentApplyTest.alloc("a1", null, false).toBuilder()
                .clientStatus(Allocation.CLIENT_COMPLETE).build();
        apply(5, new Command.AllocClientUpdate(List.of(new Command.NodeAllocs("n", List.of(done))), T0, List.of()));
        assertEquals(List.of("a2"), byName("api").stream().map(ServiceRegistration::allocId).toList());
        apply(6, new Command.ServiceRegistrationUpsert(List.of(reg("a1", "api", 8080))));
        assertEquals(1, byName("api").size(), "a late registration of a stopped allocation is dropped");
    }

    @Test
    void aNodeGoingDownLosesItsServices() throws Exception {
        place();
        apply(4, new Command.ServiceRegistrationUpsert(List.of(reg("a1", "api", 8080))));
        apply(5, new Command.NodeStatusUpdate("n", Node.STATUS_DOWN, T0 / 1_000_000_000L, List.of()));
        assertTrue(byName("api").isEmpty());
    }

    @Test
    void aClientRegistersOnlyItsOwnAllocationsWithTheServersFacts() throws Exception {
        place();
        Node n = store.snapshot().get(NomadTables.NODES, "n").orElseThrow();
        ServiceRegistration lying = new ServiceRegistration("x", "api", "other", "elsewhere", "dcX", "job", "a1",
                List.of(), "10.0.0.1", 1, 0, 0);
        ServiceRegistration stored = NodeEndpoints.ownServices(store.snapshot(), n, List.of(lying)).get(0);
        assertEquals("default", stored.namespace());
        assertEquals("n", stored.nodeId());
        assertEquals("web", stored.jobId());
        assertEquals(n.datacenter(), stored.datacenter());
        Node other = n.toBuilder().id("m").build();
        CaravanException e = assertThrows(CaravanException.class,
                () -> NodeEndpoints.ownServices(store.snapshot(), other, List.of(lying)));
        assertTrue(e.getMessage().contains("does not run on node"), e.getMessage());
        assertThrows(CaravanException.class, () -> NodeEndpoints.ownServices(store.snapshot(), n,
                List.of(reg("nope", "api", 1))));
    }
}
