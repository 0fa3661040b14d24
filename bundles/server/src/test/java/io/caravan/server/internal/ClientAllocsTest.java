package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.caravan.api.endpoint.NodeEndpoint.ClientAllocs;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A client's allocation list: all of it at first, then only what changed since the answer it applied. */
class ClientAllocsTest {
    private final ServerState state = new ServerState();
    private final RaftWrites writes = JobLimitsTest.writes(state, new AtomicLong());
    private final NodeEndpoints endpoints = new NodeEndpoints(state, writes, new ClusterRoutesTest.Agent(true, true),
            null);
    private Job job;

    @BeforeEach
    void register() throws Exception {
        write(new Command.NodeRegister(NodeLifecycleTest.node("n", "ready"), List.of()));
        Job spec = FsmTest.job("web", 50);
        write(new Command.JobRegister(spec, Evaluation.forJob("e", spec, "job-register", 0), false, 0));
        job = state.store().snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow();
        place("a1");
    }

    @AfterEach
    void stop() {
        endpoints.deactivate();
        state.deactivate();
    }

    private void write(Command command) throws Exception {
        Command.Result result = writes.submit(command).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(0, result.errorCode(), result.error());
    }

    private void place(String id) throws Exception {
        write(new Command.PlanApply("e", job, List.of(), List.of(DeploymentApplyTest.alloc(id, null, false)), 1, null,
                List.of()));
    }

    private ClientAllocs ask(long known) throws Exception {
        return endpoints.clientAllocs("n", "s", 0, known, Duration.ZERO).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void answersWhatChangedAfterTheKnownIndexAndTheNodesTotal() throws Exception {
        ClientAllocs all = ask(0);
        assertEquals(List.of("a1"), List.copyOf(all.allocs().keySet()));
        assertEquals(1, all.total());

        place("a2");
        ClientAllocs changed = ask(all.index());
        assertEquals(List.of("a2"), List.copyOf(changed.allocs().keySet()), "only the new one");
        assertEquals(2, changed.total());

        Allocation running = state.store().snapshot().get(NomadTables.ALLOCS, "a1").orElseThrow()
                .withClientStatus(Allocation.CLIENT_RUNNING, "Tasks are running");
        write(new Command.AllocClientUpdate(List.of(new Command.NodeAllocs("n", List.of(running))), 2, List.of()));
        ClientAllocs afterReport = ask(changed.index());
        assertEquals(Map.of(), afterReport.allocs(), "a client's own report changes no AllocModifyIndex");
        assertEquals(2, afterReport.total());
        assertEquals(2, ask(0).allocs().size(), "the full list still answers every allocation");
        assertEquals(2, endpoints.clientAllocs("n", "s", 0, Duration.ZERO).toCompletableFuture().get().allocs().size());
    }
}
