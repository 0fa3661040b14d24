package io.caravan.driver.exec.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.annotation.Annotation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.caravan.driver.executor.internal.WrapperProcessExecutor;
import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.DriverHealth;
import io.caravan.plugin.api.driver.ExecResult;
import io.caravan.plugin.api.driver.ExecSession;
import io.caravan.plugin.api.driver.ExitResult;
import io.caravan.plugin.api.driver.TaskConfig;
import io.caravan.plugin.api.driver.TaskHandle;
import io.caravan.plugin.api.driver.TaskId;
import io.caravan.plugin.api.driver.TaskStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Real namespaces, chroot and cgroups: runs only where the driver is healthy (Linux, root, cgroup v1). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExecDriverTest {
    private static final TaskId ID = new TaskId("0c1e7a55-test", "web");
    private static final long MB = 1024L * 1024;

    @TempDir
    Path tmp;
    private Path taskDir;
    private Path logs;
    private final WrapperProcessExecutor executor = new WrapperProcessExecutor();
    private ExecDriver driver;

    static ExecConfig config() {
        return new ExecConfig() {
            @Override
            public String[] config_chroot_env() {
                return new String[] {"/bin", "/etc", "/lib", "/lib32", "/lib64", "/sbin", "/usr"};
            }

            @Override
            public String config_cgroup_parent() {
                return "caravan-test";
            }

            @Override
            public String config_default_user() {
                return "nobody";
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return ExecConfig.class;
            }
        };
    }

    @BeforeEach
    void setUp() throws Exception {
        driver = new ExecDriver(executor, config());
        assumeTrue(driver.health().state() == DriverHealth.State.HEALTHY, driver.health().description());
        Path allocDir = tmp.resolve("alloc-1");
        taskDir = allocDir.resolve("web");
        logs = allocDir.resolve("alloc/logs");
        Files.createDirectories(taskDir.resolve("local"));
        Files.createDirectories(logs);
        for (Path dir : List.of(tmp, allocDir, taskDir, allocDir.resolve("alloc"), logs)) {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Files.setPosixFilePermissions(taskDir.resolve("local"), PosixFilePermissions.fromString("rwxrwxrwx"));
    }

    @org.junit.jupiter.api.AfterAll
    static void removeParentCgroups() throws Exception {
        for (String controller : List.of("memory", "cpu")) {
            Files.deleteIfExists(Path.of("/sys/fs/cgroup", controller, "caravan-test")); // empty by now
        }
    }

    @AfterEach
    void cleanUp() {
        try {
            driver.destroy(ID, true);
        } catch (DriverException e) {
            // nothing left
        }
        executor.close();
    }

    private TaskConfig task(long memoryMb, String... argv) {
        return new TaskConfig(ID, "example", Map.of("command", argv[0], "args", List.of(argv).subList(1, argv.length)),
                Map.of("PATH", "/usr/bin:/bin"), "", taskDir, logs.resolve("web.stdout.0"),
                logs.resolve("web.stderr.0"), 250, memoryMb, 0);
    }

    private ExitResult exitOf(ExecDriver d) throws Exception {
        return d.awaitExit(ID).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private String stdout() throws Exception {
        return Files.readString(logs.resolve("web.stdout.0"));
    }

    private void awaitOutput(String line) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.exists(logs.resolve("web.stdout.0")) || !stdout().contains(line)) {
            assertTrue(System.nanoTime() < deadline, "no '" + line + "' in stdout");
            Thread.sleep(10);
        }
    }

    @Test
    void healthAndCapabilities() {
        assertEquals(Map.of("driver.exec", "1"), driver.health().attributes());
        assertEquals("chroot", driver.capabilities().fsIsolation());
        assertTrue(driver.capabilities().exec());
    }

    @Test
    void runsChrootedAsNobodyInItsOwnNamespacesAndCgroups() throws Exception {
        driver.start(task(64, "/bin/sh", "-c", "id -u; pwd; tr '\\0' ' ' < /proc/1/cmdline | grep -c caravan-init; ls /private | wc -l; "
                + "test -d /alloc/logs && echo alloc; test -e " + tmp + " || echo host-hidden; "
                + "grep memory /proc/self/cgroup; echo x > /local/out && echo wrote; touch /usr/x 2>/dev/null || echo ro"));
        assertEquals(0, exitOf(driver).exitCode(), () -> stderrQuietly());
        List<String> lines = List.of(stdout().split("\n"));
        assertEquals("65534", lines.get(0));
        assertEquals("/", lines.get(1));
        assertEquals("1", lines.get(2), "its own pid namespace, whose pid 1 is the init");
        assertEquals("0", lines.get(3), "the executor's files are hidden");
        assertEquals("alloc", lines.get(4));
        assertEquals("host-hidden", lines.get(5));
        assertTrue(lines.get(6).endsWith(":memory:/caravan-test/0c1e7a55-test.web"), lines.get(6));
        assertEquals("wrote", lines.get(7));
        assertEquals("ro", lines.get(8));
        assertTrue(Files.exists(taskDir.resolve("local/out")));
        long limit = Long.parseLong(Files.readString(
                Path.of("/sys/fs/cgroup/memory/caravan-test/0c1e7a55-test.web/memory.limit_in_bytes")).trim());
        assertEquals(64 * MB, limit);
        driver.destroy(ID, false);
        assertFalse(Files.exists(Path.of("/sys/fs/cgroup/memory/caravan-test/0c1e7a55-test.web")), "cgroup removed");
    }

    private String stderrQuietly() {
        try {
            return Files.readString(logs.resolve("web.stderr.0"));
        } catch (Exception e) {
            return e.toString();
        }
    }

    @Test
    void signalsReachTheCommandThroughTheInit() throws Exception {
        driver.start(task(64, "/bin/sleep", "30"));
        driver.stop(ID, Duration.ofSeconds(10), "SIGTERM");
        assertEquals(new ExitResult(143, 15, false, null), exitOf(driver));
    }

    @Test
    void sigintReachesTheCommand() throws Exception {
        driver.start(task(64, "/bin/sh", "-c", "trap 'echo got-int; exit 9' INT; echo ready; while :; do sleep 0.05; done"));
        awaitOutput("ready");
        driver.signal(ID, "SIGINT");
        assertEquals(9, exitOf(driver).exitCode());
        assertTrue(stdout().contains("got-int"));
    }

    @Test
    void stopEscalatesToSigkill() throws Exception {
        driver.start(task(64, "/bin/sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"));
        awaitOutput("ready");
        driver.stop(ID, Duration.ofMillis(300), "SIGTERM");
        assertEquals(new ExitResult(137, 9, false, null), exitOf(driver));
    }

    @Test
    void memoryLimitOomKills() throws Exception {
        driver.start(task(16, "/usr/bin/tail", "/dev/zero")); // tail buffers a line that never ends
        ExitResult exit = exitOf(driver);
        assertEquals(9, exit.signal(), exit.toString());
        assertTrue(exit.oomKilled(), exit.toString());
        assertEquals(TaskStatus.State.EXITED, driver.inspect(ID).state());
        assertTrue(driver.inspect(ID).exit().oomKilled());
    }

    @Test
    void recoveredAfterAgentRestart() throws Exception {
        TaskHandle handle = driver.start(task(64, "/bin/sleep", "30"));
        executor.close();
        WrapperProcessExecutor next = new WrapperProcessExecutor();
        try {
            ExecDriver recovered = new ExecDriver(next, config());
            recovered.recover(handle);
            assertEquals(TaskStatus.State.RUNNING, recovered.inspect(ID).state());
            ExecResult exec = recovered.exec(ID, List.of("/bin/sh", "-c", "id -u; pwd; echo $PATH; test -e " + tmp
                    + " || echo chrooted; tr '\\0' ' ' < /proc/1/cmdline | grep -c caravan-init"), Duration.ofSeconds(10));
            assertEquals("65534\n/\n/usr/bin:/bin\nchrooted\n1\n", new String(exec.stdout(), StandardCharsets.UTF_8),
                    new String(exec.stderr(), StandardCharsets.UTF_8));
            recovered.stop(ID, Duration.ofSeconds(10), "SIGINT");
            assertEquals(new ExitResult(130, 2, false, null), exitOf(recovered));
            recovered.destroy(ID, false);
        } finally {
            next.close();
        }
    }

    /** alloc exec with a TTY: a shell inside the task's namespaces and chroot, as its user, on a host pty. */
    @Test
    void streamingExecRunsAShellInsideTheChrootOnATerminal() throws Exception {
        driver.start(task(64, "/bin/sleep", "30"));
        ExecSession shell = driver.execStreaming(ID, List.of("/bin/sh"), true);
        shell.stdin().write(("id -u; test -e " + tmp + " || echo chrooted; test -t 0 && echo on-a-tty; "
                + "echo $((6*7))\nexit 4\n").getBytes(StandardCharsets.UTF_8));
        shell.stdin().flush();
        int code = shell.exitCode().toCompletableFuture().get(30, TimeUnit.SECONDS);
        String out = new String(shell.stdout().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(4, code, out + new String(shell.stderr().readAllBytes(), StandardCharsets.UTF_8));
        for (String expected : List.of("65534", "chrooted", "on-a-tty", "42")) {
            assertTrue(out.contains(expected), expected + " in " + out);
        }
        ExecSession plain = driver.execStreaming(ID, List.of("/bin/sh", "-c", "echo out; echo err >&2; exit 2"), false);
        assertEquals(2, plain.exitCode().toCompletableFuture().get(30, TimeUnit.SECONDS));
        assertEquals("out\n", new String(plain.stdout().readAllBytes(), StandardCharsets.UTF_8));
        assertEquals("err\n", new String(plain.stderr().readAllBytes(), StandardCharsets.UTF_8));
        assertTrue(driver.pids(ID).size() >= 1);
    }
}
