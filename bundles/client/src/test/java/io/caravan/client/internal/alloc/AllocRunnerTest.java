package io.caravan.client.internal.alloc;

import static io.caravan.client.internal.testing.Fixtures.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.api.model.AllocDeploymentStatus;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.TaskEvent;
import io.caravan.api.model.TaskState;
import io.caravan.client.internal.hooks.ArtifactSandbox;
import io.caravan.client.internal.hooks.LogRotator;
import io.caravan.client.internal.state.ClientStateStore;
import io.caravan.client.internal.testing.Fixtures;
import io.caravan.client.internal.testing.ProcessTestDriver;
import io.caravan.plugin.api.driver.TaskDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Alloc and task runners with real processes started by a test driver. */
class AllocRunnerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private ScheduledExecutorService scheduler;
    private ExecutorService workers;
    private LogRotator logs;
    private final ProcessTestDriver driver = new ProcessTestDriver();
    private final List<Allocation> updates = new CopyOnWriteArrayList<>();
    private RunnerServices services;

    @BeforeEach
    void setUp() {
        scheduler = Executors.newSingleThreadScheduledExecutor();
        workers = Executors.newCachedThreadPool();
        logs = new LogRotator(scheduler, Duration.ofMillis(100));
        services = new RunnerServices(scheduler, workers, Clock.systemUTC(), new Random(1),
                name -> "test".equals(name) ? Optional.<TaskDriver>of(driver) : Optional.empty(),
                () -> Fixtures.node("node-1", Map.of(), Map.of()), new ClientStateStore(dir.resolve("state")), logs,
                updates::add, dir.resolve("alloc"), Duration.ofSeconds(30),
                ArtifactSandbox.ISOLATED);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        scheduler.shutdownNow();
        workers.shutdown(); // state writes in flight finish before the temp dir goes
        workers.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
        workers.shutdownNow();
    }

    private AllocRunner run(Allocation alloc) {
        AllocRunner runner = new AllocRunner(services, alloc, null, r -> { });
        runner.run();
        return runner;
    }

    private static List<String> types(TaskState state) {
        return state.events().stream().map(TaskEvent::type).toList();
    }

    private String lastStatus() {
        return updates.isEmpty() ? null : updates.get(updates.size() - 1).clientStatus();
    }

    @Test
    void batchTaskThatExitsZeroIsDeadAndTheAllocComplete() throws Exception {
        Allocation alloc = Fixtures.alloc("n1", "job", "batch", Map.of(),
                Fixtures.shTask("hello", "echo hello from $NOMAD_TASK_NAME; exit 0"));
        AllocRunner runner = run(alloc);

        await(WAIT, "complete", () -> Allocation.CLIENT_COMPLETE.equals(lastStatus()));
        TaskState state = runner.states().get("hello");
        assertEquals(TaskState.STATE_DEAD, state.state());
        assertFalse(state.failed());
        assertEquals(0, state.restarts());
        assertNotNull(state.startedAt());
        assertNotNull(state.finishedAt());
        assertEquals(List.of("Received", "Task Setup", "Started", "Terminated"), types(state));
        assertEquals("Exit Code: 0", state.events().get(3).displayMessage());
        assertTrue(updates.stream().anyMatch(u -> Allocation.CLIENT_RUNNING.equals(u.clientStatus()))
                || updates.stream().anyMatch(u -> Allocation.CLIENT_PENDING.equals(u.clientStatus())));
        Path stdout = dir.resolve("alloc").resolve(alloc.id()).resolve("alloc/logs/hello.stdout.0");
        assertEquals("hello from hello\n", Files.readString(stdout));
        assertEquals(stdout, driver.started.get(0).stdoutPath());
    }

    @Test
    void failingTaskRestartsPerPolicyThenFails() {
        Map<String, Object> task = Fixtures.shTask("flaky", "exit 1");
        task.put("RestartPolicy", Fixtures.restart(2, Duration.ofMillis(50), Duration.ofMinutes(5), "fail"));
        AllocRunner runner = run(Fixtures.alloc("n1", "job", "batch", Map.of(), task));

        await(WAIT, "failed", () -> Allocation.CLIENT_FAILED.equals(lastStatus()));
        TaskState state = runner.states().get("flaky");
        assertEquals(TaskState.STATE_DEAD, state.state());
        assertTrue(state.failed());
        assertEquals(2, state.restarts());
        assertNotNull(state.lastRestart());
        assertEquals(3, driver.started.size());
        List<String> types = types(state);
        assertEquals(TaskEvent.NOT_RESTARTING, types.get(types.size() - 1));
        assertEquals(2, types.stream().filter(TaskEvent.RESTARTING::equals).count());
        assertEquals("Exceeded allowed attempts 2 in interval 5m0s and mode is \"fail\"",
                state.events().get(state.events().size() - 1).displayMessage());
        assertEquals("Failed tasks", updates.get(updates.size() - 1).clientDescription());
    }

    @Test
    void prestartRunsBeforeMainAndPoststopAfter() throws Exception {
        Map<String, Object> pre = Fixtures.shTask("init", "echo ready > $NOMAD_ALLOC_DIR/data/flag");
        pre.put("Lifecycle", Map.of("Hook", "prestart", "Sidecar", false));
        Map<String, Object> main = Fixtures.shTask("main", "test -f $NOMAD_ALLOC_DIR/data/flag && sleep 0.2");
        Map<String, Object> post = Fixtures.shTask("cleanup", "echo done >> $NOMAD_ALLOC_DIR/data/flag");
        post.put("Lifecycle", Map.of("Hook", "poststop"));
        Allocation alloc = Fixtures.alloc("n1", "job", "batch", Map.of(), post, main, pre);
        AllocRunner runner = run(alloc);

        await(WAIT, "complete", () -> Allocation.CLIENT_COMPLETE.equals(lastStatus()));
        Map<String, TaskState> states = runner.states();
        states.values().forEach(s -> assertFalse(s.failed(), s.toString()));
        assertTrue(states.get("init").finishedAt().compareTo(states.get("main").startedAt()) <= 0);
        assertTrue(states.get("main").finishedAt().compareTo(states.get("cleanup").startedAt()) <= 0);
        assertEquals("ready\ndone\n",
                Files.readString(dir.resolve("alloc").resolve(alloc.id()).resolve("alloc/data/flag")));
    }

    @Test
    void aFailedTaskKillsItsSiblings() {
        Map<String, Object> failing = Fixtures.shTask("bad", "exit 3");
        failing.put("RestartPolicy", Fixtures.restart(0, Duration.ofMillis(10), Duration.ofMinutes(5), "fail"));
        Map<String, Object> sleeper = Fixtures.shTask("sleeper", "sleep 30");
        AllocRunner runner = run(Fixtures.alloc("n1", "job", "service", Map.of(), sleeper, failing));

        await(WAIT, "failed and all dead", () -> Allocation.CLIENT_FAILED.equals(lastStatus())
                && runner.states().values().stream().allMatch(s -> TaskState.STATE_DEAD.equals(s.state())));
        TaskState sleeperState = runner.states().get("sleeper");
        List<String> types = types(sleeperState);
        assertTrue(types.contains(TaskEvent.SIBLING_FAILED), types.toString());
        assertTrue(types.contains(TaskEvent.KILLING), types.toString());
        assertEquals(TaskEvent.TERMINATED, types.get(types.size() - 1));
        assertFalse(sleeperState.failed());
        assertEquals("Task's sibling \"bad\" failed", sleeperState.events().stream()
                .filter(e -> TaskEvent.SIBLING_FAILED.equals(e.type())).findFirst().orElseThrow().displayMessage());
    }

    @Test
    void stoppingAServiceAllocKillsItsTaskAndCompletes() {
        AllocRunner runner = run(Fixtures.alloc("n1", "job", "service", Map.of(), Fixtures.shTask("web", "sleep 30")));
        await(WAIT, "running", () -> Allocation.CLIENT_RUNNING.equals(lastStatus()));

        runner.update(runner.alloc().withDesiredStatus(Allocation.DESIRED_STOP, "alloc not needed"));
        await(WAIT, "complete", () -> Allocation.CLIENT_COMPLETE.equals(lastStatus()));
        List<String> types = types(runner.states().get("web"));
        assertEquals(List.of("Received", "Task Setup", "Started", "Killing", "Terminated"), types);
        assertFalse(driver.process(new io.caravan.plugin.api.driver.TaskId(runner.allocId(), "web")) != null
                && driver.process(new io.caravan.plugin.api.driver.TaskId(runner.allocId(), "web")).isAlive());
    }

    @Test
    void aMissingDriverIsADriverFailureThatRestarts() {
        Map<String, Object> task = Fixtures.shTask("t", "true");
        task.put("Driver", "nope");
        task.put("RestartPolicy", Fixtures.restart(1, Duration.ofMillis(10), Duration.ofMinutes(5), "fail"));
        AllocRunner runner = run(Fixtures.alloc("n1", "job", "batch", Map.of(), task));
        await(WAIT, "failed", () -> Allocation.CLIENT_FAILED.equals(lastStatus()));
        List<String> types = types(runner.states().get("t"));
        assertEquals(List.of("Received", "Task Setup", "Driver Failure", "Restarting", "Driver Failure",
                "Not Restarting"), types);
    }

    @Test
    void aDeadLeaderTakesTheGroupDown() {
        Map<String, Object> leader = Fixtures.shTask("leader", "sleep 0.2");
        leader.put("Leader", true);
        AllocRunner runner = run(Fixtures.alloc("n1", "job", "batch", Map.of(), leader,
                Fixtures.shTask("helper", "sleep 30")));
        await(WAIT, "complete", () -> Allocation.CLIENT_COMPLETE.equals(lastStatus()));
        List<String> types = types(runner.states().get("helper"));
        assertTrue(types.contains(TaskEvent.LEADER_DEAD), types.toString());
        assertEquals(TaskEvent.TERMINATED, types.get(types.size() - 1));
    }

    @Test
    void stopKillsTheLeaderBeforeTheOthers() {
        Map<String, Object> leader = Fixtures.shTask("leader", "sleep 30");
        leader.put("Leader", true);
        AllocRunner runner = run(Fixtures.alloc("n1", "job", "service", Map.of(),
                Fixtures.shTask("other", "sleep 30"), leader));
        await(WAIT, "running", () -> runner.states().values().stream()
                .allMatch(s -> TaskState.STATE_RUNNING.equals(s.state())));
        runner.stop();
        await(WAIT, "complete", () -> Allocation.CLIENT_COMPLETE.equals(lastStatus()));
        TaskState leaderState = runner.states().get("leader");
        TaskState otherState = runner.states().get("other");
        long leaderKilled = leaderState.events().stream().filter(e -> TaskEvent.TERMINATED.equals(e.type()))
                .findFirst().orElseThrow().time();
        long otherKilling = otherState.events().stream().filter(e -> TaskEvent.KILLING.equals(e.type()))
                .findFirst().orElseThrow().time();
        assertTrue(leaderKilled <= otherKilling, "leader dead before the others are signalled");
    }

    @Test
    void anAllocDirThatCannotBeBuiltFailsEveryTask() throws Exception {
        Path notADir = Files.writeString(dir.resolve("occupied"), "a file where the alloc dir should be");
        services = new RunnerServices(scheduler, workers, Clock.systemUTC(), new Random(1),
                name -> Optional.<TaskDriver>of(driver), () -> Fixtures.node("node-1", Map.of(), Map.of()),
                new ClientStateStore(dir.resolve("state")), logs, updates::add, notADir, Duration.ofSeconds(30),
                ArtifactSandbox.ISOLATED);
        AllocRunner runner = run(Fixtures.alloc("n1", "job", "service", Map.of(), Fixtures.shTask("web", "sleep 1")));
        await(WAIT, "failed", () -> Allocation.CLIENT_FAILED.equals(lastStatus()));
        TaskState state = runner.states().get("web");
        assertTrue(state.failed());
        assertEquals(TaskEvent.SETUP_FAILURE, state.events().get(1).type());
        assertTrue(driver.started.isEmpty());
    }

    @Test
    void shutdownDelaysComeBeforeTheKill() {
        Map<String, Object> task = Fixtures.shTask("web", "sleep 30");
        task.put("ShutdownDelay", Duration.ofMillis(300).toNanos());
        AllocRunner runner = run(Fixtures.alloc("n1", "job", "service",
                Map.of("ShutdownDelay", Duration.ofMillis(300).toNanos()), task));
        await(WAIT, "running", () -> Allocation.CLIENT_RUNNING.equals(lastStatus()));

        long stopAt = System.nanoTime();
        runner.stop();
        await(WAIT, "complete", () -> Allocation.CLIENT_COMPLETE.equals(lastStatus()));
        assertTrue(System.nanoTime() - stopAt >= Duration.ofMillis(600).toNanos(), "group then task delay");
        List<TaskEvent> events = runner.states().get("web").events();
        List<String> types = events.stream().map(TaskEvent::type).toList();
        assertEquals(List.of("Received", "Task Setup", "Started", "Waiting for shutdown delay", "Killing",
                "Terminated"), types);
        assertEquals("Waiting for shutdown_delay of 300ms before killing the task.", events.get(3).displayMessage());
        assertTrue(events.get(4).time() - events.get(3).time() >= Duration.ofMillis(300).toNanos());
    }

    @Test
    void noShutdownDelaySkipsThem() {
        Map<String, Object> task = Fixtures.shTask("web", "sleep 30");
        task.put("ShutdownDelay", Duration.ofSeconds(30).toNanos());
        AllocRunner runner = run(Fixtures.alloc("n1", "job", "service",
                Map.of("ShutdownDelay", Duration.ofSeconds(30).toNanos()), task));
        await(WAIT, "running", () -> Allocation.CLIENT_RUNNING.equals(lastStatus()));
        Allocation skip = io.caravan.api.json.NomadJson.mapper().convertValue(Map.of("ID", runner.allocId(),
                "Job", runner.alloc().job(), "TaskGroup", "g", "DesiredStatus", "stop",
                "DesiredTransition", Map.of("NoShutdownDelay", true)), Allocation.class);
        runner.update(skip);
        await(Duration.ofSeconds(10), "complete", () -> Allocation.CLIENT_COMPLETE.equals(lastStatus()));
        assertTrue(runner.states().get("web").events().stream()
                .anyMatch(e -> TaskEvent.SKIP_SHUTDOWN_DELAY.equals(e.type())));
    }

    @Test
    void anAllocationWithoutItsGroupIsFailed() {
        Allocation alloc = Fixtures.alloc("n1", "job", "batch", Map.of(), Fixtures.shTask("t", "true"));
        Allocation wrongGroup = io.caravan.api.json.NomadJson.mapper().convertValue(Map.of("ID", alloc.id(),
                "Job", alloc.job(), "TaskGroup", "nope", "DesiredStatus", "run"), Allocation.class);
        run(wrongGroup);
        await(WAIT, "failed", () -> Allocation.CLIENT_FAILED.equals(lastStatus()));
        assertEquals("missing task group \"nope\"", updates.get(updates.size() - 1).clientDescription());
    }

    @Test
    void aFailingHookIsATaskHookFailedEvent() {
        Map<String, Object> task = Fixtures.shTask("t", "true");
        task.put("DispatchPayload", Map.of("File", "../../../outside"));
        task.put("RestartPolicy", Fixtures.restart(0, Duration.ofMillis(10), Duration.ofMinutes(5), "fail"));
        Allocation alloc = Fixtures.alloc("n1", "job", "batch", Map.of(), task);
        @SuppressWarnings("unchecked")
        Map<String, Object> json = io.caravan.api.json.NomadJson.mapper().convertValue(alloc, java.util.LinkedHashMap.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> job = (Map<String, Object>) json.get("Job");
        job.put("Payload", java.util.Base64.getEncoder().encodeToString("x".getBytes()));
        AllocRunner runner = run(io.caravan.api.json.NomadJson.mapper().convertValue(json, Allocation.class));
        await(WAIT, "failed", () -> Allocation.CLIENT_FAILED.equals(lastStatus()));
        TaskEvent hookFailed = runner.states().get("t").events().stream()
                .filter(e -> TaskEvent.HOOK_FAILED.equals(e.type())).findFirst().orElseThrow();
        assertTrue(hookFailed.displayMessage().startsWith("dispatch_payload: dispatch payload file escapes"),
                hookFailed.displayMessage());
        assertTrue(driver.started.isEmpty());
    }

    // ------------------------------------------------------------------------------- deployment health

    private static Allocation inDeployment(String check, Duration min, Duration deadline, boolean canary,
                                           Map<String, Object> task) {
        Map<String, Object> update = Map.of("HealthCheck", check, "MinHealthyTime", min.toNanos(),
                "HealthyDeadline", deadline.toNanos());
        return Fixtures.alloc("n1", "web", "service", Map.of("Update", update), task).toBuilder()
                .deploymentId("d-1").deploymentStatus(new AllocDeploymentStatus(null, null, canary, 7)).build();
    }

    private List<AllocDeploymentStatus> healthUpdates() {
        return updates.stream().map(Allocation::deploymentStatus).filter(s -> s != null && s.healthy() != null)
                .toList();
    }

    @Test
    void aRunningTaskBecomesHealthyAfterMinHealthyTimeAndIsReportedOnce() {
        Duration min = Duration.ofMillis(400);
        AllocRunner runner = run(inDeployment("task_states", min, Duration.ofSeconds(20), true,
                Fixtures.shTask("web", "sleep 30")));
        await(WAIT, "healthy", () -> !healthUpdates().isEmpty());
        AllocDeploymentStatus status = healthUpdates().get(0);
        assertEquals(Boolean.TRUE, status.healthy());
        assertTrue(status.canary(), "the server's canary flag is kept");
        Instant started = runner.states().get("web").startedAt();
        assertFalse(status.timestamp().isBefore(started.plus(min)), status + " vs start " + started);
        Allocation sent = updates.stream().filter(u -> u.deploymentStatus() != null
                && u.deploymentStatus().healthy() != null).findFirst().orElseThrow();
        assertEquals("d-1", sent.deploymentId());
        assertEquals(Allocation.CLIENT_RUNNING, sent.clientStatus());

        // A server update that has not merged the health yet does not make the client forget or decide again.
        runner.update(runner.alloc().toBuilder().deploymentStatus(new AllocDeploymentStatus(null, null, true, 8))
                .build());
        assertEquals(Boolean.TRUE, runner.alloc().deploymentStatus().healthy());
        runner.restart("web");
        await(WAIT, "restarted", () -> runner.states().get("web").restarts() == 1
                && TaskState.STATE_RUNNING.equals(runner.states().get("web").state()));
        await(WAIT, "reported", () -> updates.get(updates.size() - 1).taskStates().get("web").restarts() == 1);
        assertEquals(1, healthUpdates().stream().map(AllocDeploymentStatus::timestamp).distinct().count());
        runner.stop();
    }

    @Test
    void aTaskThatFailsMakesTheAllocationUnhealthy() {
        Map<String, Object> task = Fixtures.shTask("web", "exit 2");
        task.put("RestartPolicy", Fixtures.restart(0, Duration.ofMillis(10), Duration.ofMinutes(5), "fail"));
        run(inDeployment("checks", Duration.ofSeconds(10), Duration.ofSeconds(20), false, task));
        await(WAIT, "unhealthy", () -> !healthUpdates().isEmpty());
        assertEquals(Boolean.FALSE, healthUpdates().get(0).healthy());
        assertFalse(healthUpdates().get(0).canary());
    }

    @Test
    void theHealthyDeadlinePassingFirstIsUnhealthy() {
        AllocRunner runner = run(inDeployment("task_states", Duration.ofSeconds(30), Duration.ofMillis(500), false,
                Fixtures.shTask("web", "sleep 30")));
        await(WAIT, "unhealthy", () -> !healthUpdates().isEmpty());
        assertEquals(Boolean.FALSE, healthUpdates().get(0).healthy());
        assertEquals(TaskState.STATE_RUNNING, runner.states().get("web").state(), "the task keeps running");
        runner.stop();
    }

    @Test
    void manualHealthIsNeverSetByTheClient() throws Exception {
        AllocRunner runner = run(inDeployment("manual", Duration.ofMillis(50), Duration.ofMillis(300), false,
                Fixtures.shTask("web", "sleep 30")));
        await(WAIT, "running", () -> Allocation.CLIENT_RUNNING.equals(lastStatus()));
        Thread.sleep(600); // past both min_healthy_time and healthy_deadline
        assertTrue(healthUpdates().isEmpty(), healthUpdates().toString());
        runner.stop();
    }
}
