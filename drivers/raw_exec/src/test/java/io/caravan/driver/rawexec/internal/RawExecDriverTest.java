package io.caravan.driver.rawexec.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.caravan.driver.executor.internal.WrapperProcessExecutor;
import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.DriverHealth;
import io.caravan.plugin.api.driver.ExitResult;
import io.caravan.plugin.api.driver.TaskConfig;
import io.caravan.plugin.api.driver.TaskHandle;
import io.caravan.plugin.api.driver.TaskId;
import io.caravan.plugin.api.driver.TaskStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RawExecDriverTest {
    private static final TaskId ID = new TaskId("8d7e1c2a", "web");

    @TempDir
    Path allocDir;
    private final WrapperProcessExecutor executor = new WrapperProcessExecutor();

    @AfterEach
    void cleanUp() {
        try {
            executor.destroy(ID, true);
        } catch (DriverException e) {
            // nothing left
        }
        executor.close();
    }

    static RawExecConfig config(boolean enabled) {
        return new RawExecConfig() {
            @Override
            public boolean config_enabled() {
                return enabled;
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return RawExecConfig.class;
            }
        };
    }

    private TaskConfig task(Map<String, Object> config) {
        Path taskDir = allocDir.resolve("web");
        return new TaskConfig(ID, "example", config, Map.of("PATH", "/usr/bin:/bin", "NOMAD_TASK_NAME", "web"), "",
                taskDir, allocDir.resolve("alloc/logs/web.stdout.0"), allocDir.resolve("alloc/logs/web.stderr.0"),
                100, 64, 0);
    }

    private static ExitResult exitOf(RawExecDriver driver) throws Exception {
        return driver.awaitExit(ID).toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @Test
    void disabledIsUndetectedAndRefusesTasks() {
        RawExecDriver driver = new RawExecDriver(executor, config(false));
        DriverHealth health = driver.health();
        assertEquals(DriverHealth.State.UNDETECTED, health.state());
        assertTrue(health.description().contains("enabled = true"), health.description());
        assertTrue(health.attributes().isEmpty());
        DriverException e = assertThrows(DriverException.class,
                () -> driver.start(task(Map.of("command", "/bin/true"))));
        assertTrue(e.getMessage().startsWith("raw_exec is disabled"), e.getMessage());
    }

    @Test
    void enabledRunsTheCommandInTheTaskDirectory() throws Exception {
        RawExecDriver driver = new RawExecDriver(executor, config(true));
        assertEquals(DriverHealth.healthy(Map.of("driver.raw_exec", "1")), driver.health());
        assertTrue(driver.capabilities().sendSignals());
        assertEquals("none", driver.capabilities().fsIsolation());

        TaskHandle handle = driver.start(task(Map.of("command", "/bin/sh",
                "args", List.of("-c", "echo \"$NOMAD_TASK_NAME\" in \"$(pwd)\"; exit 3"))));
        assertEquals("raw_exec", handle.driver());
        assertEquals(new ExitResult(3, 0, false, null), exitOf(driver));
        assertEquals("web in " + allocDir.resolve("web").toRealPath() + "\n",
                Files.readString(allocDir.resolve("alloc/logs/web.stdout.0")));
        TaskStatus status = driver.inspect(ID);
        assertEquals(TaskStatus.State.EXITED, status.state());
        driver.destroy(ID, false);
        assertThrows(DriverException.class, () -> driver.inspect(ID));
        assertFalse(Files.list(allocDir.resolve("web/private")).findAny().isPresent(), "control files removed");
    }

    @Test
    void argsMayBeAnArray() throws Exception {
        RawExecDriver driver = new RawExecDriver(executor, config(true));
        driver.start(task(Map.of("command", "echo", "args", new String[] {"a", "b"})));
        assertEquals(0, exitOf(driver).exitCode());
        assertEquals("a b\n", Files.readString(allocDir.resolve("alloc/logs/web.stdout.0")));
    }

    @Test
    void missingCommandIsRefused() {
        RawExecDriver driver = new RawExecDriver(executor, config(true));
        DriverException e = assertThrows(DriverException.class, () -> driver.start(task(Map.of("args", List.of()))));
        assertTrue(e.getMessage().contains("command"), e.getMessage());
    }

    @Test
    void stopSignalAndDefaultKillSignal() throws Exception {
        RawExecDriver driver = new RawExecDriver(executor, config(true));
        driver.start(task(Map.of("command", "sleep", "args", List.of("30"))));
        assertEquals(TaskStatus.State.RUNNING, driver.inspect(ID).state());
        driver.stop(ID, Duration.ofSeconds(10), "");
        assertEquals(new ExitResult(130, 2, false, null), exitOf(driver), "SIGINT, Nomad's default kill_signal");
    }

    @Test
    void recoveredByANewDriverAndExecutor() throws Exception {
        RawExecDriver driver = new RawExecDriver(executor, config(true));
        TaskHandle handle = driver.start(task(Map.of("command", "sleep", "args", List.of("30"))));
        executor.close(); // agent restart: driver and executor go, the task stays

        WrapperProcessExecutor nextExecutor = new WrapperProcessExecutor();
        try {
            RawExecDriver next = new RawExecDriver(nextExecutor, config(true));
            TaskHandle recovered = next.recover(handle);
            assertEquals(handle.driverState(), recovered.driverState());
            assertEquals(TaskStatus.State.RUNNING, next.inspect(ID).state());
            byte[] out = next.exec(ID, List.of("sh", "-c", "echo $NOMAD_TASK_NAME"), Duration.ofSeconds(5)).stdout();
            assertArrayEquals("web\n".getBytes(StandardCharsets.UTF_8), out);
            next.signal(ID, "SIGTERM");
            ExitResult exit = next.awaitExit(ID).toCompletableFuture().get(20, TimeUnit.SECONDS);
            assertEquals(new ExitResult(143, 15, false, null), exit);
            next.destroy(ID, false);
        } finally {
            nextExecutor.close();
        }
    }

    @Test
    void unknownTaskFailsAwaitExit() {
        RawExecDriver driver = new RawExecDriver(executor, config(true));
        assertTrue(driver.awaitExit(new TaskId("x", "y")).toCompletableFuture().isCompletedExceptionally());
    }
}
