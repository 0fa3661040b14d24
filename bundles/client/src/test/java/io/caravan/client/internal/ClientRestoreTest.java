package io.caravan.client.internal;

import static io.caravan.client.internal.testing.Fixtures.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.TaskState;
import io.caravan.client.internal.state.ClientStateStore;
import io.caravan.client.internal.testing.Fixtures;
import io.caravan.client.internal.testing.InMemoryNodeEndpoint;
import io.caravan.client.internal.testing.ProcessTestDriver;
import io.caravan.plugin.api.driver.TaskId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A client restarted on the same state dir re-attaches to the tasks the previous one started. */
class ClientRestoreTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dataDir;

    @Test
    void runnerStateIsPersistedAndANewClientRecoversTheTask() throws Exception {
        InMemoryNodeEndpoint server = new InMemoryNodeEndpoint();
        ProcessTestDriver firstDriver = new ProcessTestDriver();
        Client first = new Client(ClientSettings.defaults(dataDir), Fixtures.agent("node-1", dataDir),
                Clock.systemUTC(), Fixtures.fastTiming());
        first.bindDriver("test", firstDriver);
        first.start();
        first.endpoint(server);
        Allocation alloc = Fixtures.alloc("node-1", "web", "service", Map.of(), Fixtures.shTask("web", "sleep 60"));
        server.place(alloc);
        await(WAIT, "running", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_RUNNING));
        ProcessHandle process = firstDriver.process(new TaskId(alloc.id(), "web"));
        String secret = first.secretId();

        // What is on disk: the allocation, the task state and the handle with the driver's state.
        Path stateFile = dataDir.resolve("client/allocs/" + alloc.id() + ".json");
        // (the state file is written after the status is reported: wait for it to exist, then for the handle in it)
        await(WAIT, "persisted handle", () -> java.nio.file.Files.exists(stateFile)
                && readPersisted(stateFile).tasks().get("web") != null
                && readPersisted(stateFile).tasks().get("web").handle() != null);
        ClientStateStore.PersistedAlloc persisted = readPersisted(stateFile);
        assertEquals(TaskState.STATE_RUNNING, persisted.tasks().get("web").state().state());
        assertEquals(Long.toString(process.pid()), persisted.tasks().get("web").handle().driverState().get("pid"));
        assertEquals(alloc.id(), persisted.alloc().id());
        assertTrue(Files.readString(stateFile).contains("\"Handle\""));

        first.close();
        assertTrue(process.isAlive(), "closing the client leaves tasks running");

        ProcessTestDriver secondDriver = new ProcessTestDriver();
        Client second = new Client(ClientSettings.defaults(dataDir), Fixtures.agent("node-1", dataDir),
                Clock.systemUTC(), Fixtures.fastTiming());
        try {
            second.start(); // restores before any driver is bound: the task waits, parked
            assertEquals(List.of(alloc.id()), List.copyOf(second.allocIds()));
            assertEquals(secret, second.secretId(), "the node secret survives restarts");
            second.bindDriver("test", secondDriver);
            await(WAIT, "recovered", () -> secondDriver.recovered.size() == 1);
            assertEquals(TaskState.STATE_RUNNING, second.runner(alloc.id()).orElseThrow().states().get("web").state());
            assertEquals(0, secondDriver.started.size(), "re-attached, not started again");

            second.endpoint(server);
            int before = server.allocUpdates.size();
            server.stopAlloc(alloc.id());
            await(WAIT, "complete", () -> server.allocUpdates.stream().skip(before).flatMap(List::stream)
                    .anyMatch(a -> a.id().equals(alloc.id()) && Allocation.CLIENT_COMPLETE.equals(a.clientStatus())));
            await(WAIT, "process gone", () -> !process.isAlive());
            List<String> types = second.runner(alloc.id()).orElseThrow().states().get("web").events().stream()
                    .map(e -> e.type()).toList();
            assertTrue(types.containsAll(List.of("Started", "Killing", "Terminated")), types.toString());
        } finally {
            second.close();
            server.close();
            process.destroyForcibly();
        }
    }

    @Test
    void aTaskThatCannotBeRecoveredIsStartedAgain() throws Exception {
        InMemoryNodeEndpoint server = new InMemoryNodeEndpoint();
        ProcessTestDriver firstDriver = new ProcessTestDriver();
        Client first = new Client(ClientSettings.defaults(dataDir), Fixtures.agent("node-1", dataDir),
                Clock.systemUTC(), Fixtures.fastTiming());
        first.bindDriver("test", firstDriver);
        first.start();
        first.endpoint(server);
        Allocation alloc = Fixtures.alloc("node-1", "web", "service", Map.of(), Fixtures.shTask("web", "sleep 60"));
        server.place(alloc);
        await(WAIT, "running", () -> server.reportedStatuses(alloc.id()).contains(Allocation.CLIENT_RUNNING));
        Path stateFile = dataDir.resolve("client/allocs/" + alloc.id() + ".json");
        // (the state file is written after the status is reported: wait for it to exist, then for the handle in it)
        await(WAIT, "persisted handle", () -> java.nio.file.Files.exists(stateFile)
                && readPersisted(stateFile).tasks().get("web") != null
                && readPersisted(stateFile).tasks().get("web").handle() != null);
        first.close();
        ProcessHandle process = firstDriver.process(new TaskId(alloc.id(), "web"));
        process.destroyForcibly(); // the task dies while no client watches it
        await(WAIT, "process gone", () -> !process.isAlive());

        ProcessTestDriver secondDriver = new ProcessTestDriver();
        Client second = new Client(ClientSettings.defaults(dataDir), Fixtures.agent("node-1", dataDir),
                Clock.systemUTC(), Fixtures.fastTiming());
        try {
            second.bindDriver("test", secondDriver);
            second.start();
            second.endpoint(server);
            await(WAIT, "started again", () -> secondDriver.started.size() == 1);
            await(WAIT, "running again", () -> TaskState.STATE_RUNNING.equals(
                    second.runner(alloc.id()).orElseThrow().states().get("web").state()));
            List<String> types = second.runner(alloc.id()).orElseThrow().states().get("web").events().stream()
                    .map(e -> e.type()).toList();
            assertTrue(types.contains("Failed Restoring Task"), types.toString());
            assertEquals("Started", types.get(types.size() - 1));
        } finally {
            second.close();
            server.close();
            secondDriver.process(new TaskId(alloc.id(), "web")).destroyForcibly();
        }
    }

    private static ClientStateStore.PersistedAlloc readPersisted(Path file) {
        try {
            return io.caravan.api.json.NomadJson.mapper().readValue(file.toFile(), ClientStateStore.PersistedAlloc.class);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
