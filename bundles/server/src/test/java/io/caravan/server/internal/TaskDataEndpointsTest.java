package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.caravan.acl.internal.PolicyCompilerService;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.endpoint.NodeEndpoint.TaskServices;
import io.caravan.api.endpoint.NodeEndpoint.TaskVariable;
import io.caravan.api.endpoint.NodeEndpoint.TaskVariables;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a client's templates may read through {@code NodeEndpoint}: only for an allocation the node runs, and only the
 * variables of the task's implicit workload policy; blocking queries answer once the data changes.
 */
class TaskDataEndpointsTest {
    private static final long T0 = 1_000_000_000_000L;
    private final ServerState state = new ServerState();
    private final RaftWrites writes = JobLimitsTest.writes(state, new AtomicLong());
    private final NodeEndpoints endpoints = new NodeEndpoints(state, writes, new ClusterRoutesTest.Agent(true, true),
            null);

    @BeforeEach
    void place() throws Exception {
        endpoints.policies = new PolicyCompilerService();
        endpoints.variables = VariablesTest.ready(state, writes); // variables are sealed at rest: reads must open them
        write(new Command.NodeRegister(NodeLifecycleTest.node("n", "ready"), List.of()));
        write(new Command.NodeRegister(NodeLifecycleTest.node("other", "ready"), List.of()));
        Job job = FsmTest.job("web", 50);
        write(new Command.JobRegister(job, Evaluation.forJob("e", job, "job-register", 0), false, 0));
        Job stored = state.store().snapshot().get(NomadTables.JOBS, "default\0web").orElseThrow();
        write(new Command.PlanApply("e", stored, List.of(), List.of(DeploymentApplyTest.alloc("a1", null, false)),
                T0, null, List.of()));
        variable("nomad/jobs/web", Map.of("password", "one"));
        variable("nomad/jobs/web/web/server", Map.of("k", "v"));
        variable("nomad/jobs/other", Map.of("secret", "no"));
        variable("app/config", Map.of("secret", "no"));
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

    private void variable(String path, Map<String, String> items) throws Exception {
        write(new Command.VariableSet(endpoints.variables.seal(new Variable("default", path, items, null, 0, 0, 0, 0)),
                false, 0, null, T0));
    }

    private static <T> T get(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private static ErrorCode refused(java.util.concurrent.CompletionStage<?> stage) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> get(stage));
        return ((CaravanException) e.getCause()).code();
    }

    @Test
    void aTaskReadsItsOwnVariablesAndListsOnlyThose() throws Exception {
        TaskVariables answer = get(endpoints.taskVariables("n", "s", "a1", "server",
                List.of("nomad/jobs/web", "nomad/jobs/web/web/server", "nomad/jobs/web/web"), List.of("nomad/jobs"),
                0, Duration.ZERO));
        assertEquals(Map.of("nomad/jobs/web", Map.of("password", "one"), "nomad/jobs/web/web/server", Map.of("k", "v")),
                answer.variables().stream().collect(java.util.stream.Collectors.toMap(TaskVariable::path,
                        TaskVariable::items)));
        assertEquals(List.of("nomad/jobs/web", "nomad/jobs/web/web/server"),
                answer.listed().get("nomad/jobs").stream().map(TaskVariable::path).toList());
        assertTrue(answer.listed().get("nomad/jobs").stream().allMatch(v -> v.items().isEmpty()),
                "a list carries no items");
    }

    @Test
    void otherPathsOtherNodesAndWrongSecretsAreRefused() {
        assertEquals(ErrorCode.PERMISSION_DENIED, refused(endpoints.taskVariables("n", "s", "a1", "server",
                List.of("nomad/jobs/other"), List.of(), 0, Duration.ZERO)));
        assertEquals(ErrorCode.PERMISSION_DENIED, refused(endpoints.taskVariables("n", "s", "a1", "server",
                List.of("app/config"), List.of(), 0, Duration.ZERO)));
        assertEquals(ErrorCode.PERMISSION_DENIED, refused(endpoints.taskVariables("other", "s", "a1", "server",
                List.of("nomad/jobs/web"), List.of(), 0, Duration.ZERO)));
        assertEquals(ErrorCode.PERMISSION_DENIED, refused(endpoints.taskVariables("n", "wrong", "a1", "server",
                List.of("nomad/jobs/web"), List.of(), 0, Duration.ZERO)));
        assertEquals(ErrorCode.PERMISSION_DENIED, refused(endpoints.taskServices("other", "s", "a1", List.of(), 0,
                Duration.ZERO)));
    }

    @Test
    void blockingQueriesAnswerWhenTheDataChanges() throws Exception {
        TaskVariables first = get(endpoints.taskVariables("n", "s", "a1", "server", List.of("nomad/jobs/web"),
                List.of(), 0, Duration.ZERO));
        CompletableFuture<TaskVariables> next = endpoints.taskVariables("n", "s", "a1", "server",
                List.of("nomad/jobs/web"), List.of(), first.index(), Duration.ofSeconds(30)).toCompletableFuture();
        Thread.sleep(200);
        assertFalse(next.isDone(), "nothing changed yet");
        variable("nomad/jobs/web", Map.of("password", "two"));
        assertEquals(Map.of("password", "two"), next.get(10, TimeUnit.SECONDS).variables().get(0).items());

        TaskServices none = get(endpoints.taskServices("n", "s", "a1", List.of("api"), 0, Duration.ZERO));
        assertEquals(List.of(), none.services());
        CompletableFuture<TaskServices> services = endpoints.taskServices("n", "s", "a1", List.of("api"),
                none.index(), Duration.ofSeconds(30)).toCompletableFuture();
        write(new Command.ServiceRegistrationUpsert(List.of(ServiceRegistrationsTest.reg("a1", "api", 8080))));
        assertEquals(List.of(8080), services.get(10, TimeUnit.SECONDS).services().stream()
                .map(r -> r.port()).toList());
    }
}
