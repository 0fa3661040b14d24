package io.caravan.driver.executor.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.caravan.driver.executor.ExecutedTask;
import io.caravan.driver.executor.Isolation;
import io.caravan.driver.executor.LaunchSpec;
import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.ExecResult;
import io.caravan.plugin.api.driver.ExitResult;
import io.caravan.plugin.api.driver.TaskId;
import io.caravan.plugin.api.driver.TaskStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WrapperProcessExecutorTest {
    private static final TaskId ID = new TaskId("alloc-1", "web");
    private static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin", "GREETING", "hello there");

    @TempDir
    Path dir;
    private final WrapperProcessExecutor executor = new WrapperProcessExecutor();

    @AfterEach
    void killLeftovers() {
        try {
            executor.destroy(ID, true);
        } catch (DriverException e) {
            // not launched or already destroyed
        }
        executor.close();
    }

    private LaunchSpec spec(String... command) {
        return new LaunchSpec(List.of(command), ENV, dir, dir.resolve("logs/stdout"), dir.resolve("logs/stderr"),
                dir.resolve("private"));
    }

    private static ExitResult exitOf(ExecutedTask task) throws Exception {
        return task.exit().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    private String stdout() throws Exception {
        return Files.readString(dir.resolve("logs/stdout"));
    }

    /** Waits until the task printed {@code line}: a trap is only set once the shell got that far. */
    private void awaitOutput(String line) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.exists(dir.resolve("logs/stdout")) || !stdout().contains(line)) {
            assertTrue(System.nanoTime() < deadline, "no '" + line + "' in stdout");
            Thread.sleep(10);
        }
    }

    @Test
    void exitCodeAndOutput() throws Exception {
        ExecutedTask task = executor.launch(ID, spec("sh", "-c", "echo hi; echo oops >&2; exit 3"));
        assertEquals(new ExitResult(3, 0, false, null), exitOf(task));
        assertEquals("hi\n", stdout());
        assertEquals("oops\n", Files.readString(dir.resolve("logs/stderr")));
        TaskStatus status = task.status();
        assertEquals(TaskStatus.State.EXITED, status.state());
        assertTrue(status.completedAt() != null);
    }

    @Test
    void outputIsAppendedAcrossRuns() throws Exception {
        exitOf(executor.launch(ID, spec("echo", "one")));
        exitOf(executor.launch(ID, spec("echo", "two")));
        assertEquals("one\ntwo\n", stdout());
    }

    @Test
    void environmentAndWorkingDirectoryArePassed() throws Exception {
        ExecutedTask task = executor.launch(ID, spec("sh", "-c", "echo \"$GREETING\"; pwd; env | grep -c ."));
        assertEquals(0, exitOf(task).exitCode());
        String[] lines = stdout().split("\n");
        assertEquals("hello there", lines[0]);
        assertEquals(dir.toRealPath().toString(), lines[1]);
        assertEquals("3", lines[2], "PATH, GREETING and the PWD sh sets: nothing from the agent");
    }

    @Test
    void taskHasItsOwnProcessGroupUnderTheWrapper() throws Exception {
        ExecutedTask task = executor.launch(ID, spec("sleep", "30"));
        ProcStat stat = ProcStat.of(task.pid()).orElseThrow();
        TaskState state = TaskState.fromMap(task.state());
        assertEquals(state.wrapper().pid(), stat.processGroup(), "setsid: the wrapper leads the task's group");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.readString(Path.of("/proc/" + task.pid() + "/cmdline")).startsWith("sleep\0")) {
            // the pid is known once the child wrote it, a moment before it became the command by exec
            assertTrue(System.nanoTime() < deadline, "the task's pid never became the command");
            Thread.sleep(5);
        }
    }

    /** Meaningful when the agent itself ignores SIGINT (started with nohup or by a shell's {@code &}). */
    @Test
    void noSignalIsIgnoredByTheWrapperOrTheTask() throws Exception {
        ExecutedTask task = executor.launch(ID, spec("sleep", "30"));
        long wrapper = TaskState.fromMap(task.state()).wrapper().pid();
        assertEquals(0, standardIgnored(wrapper), "agent's: " + standardIgnored(ProcessHandle.current().pid()));
        assertEquals(0, standardIgnored(task.pid()));
    }

    /** SigIgn for signals 1–31 (32 and 33 belong to glibc and stay as they are). */
    private static long standardIgnored(long pid) throws Exception {
        return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream().filter(l -> l.startsWith("SigIgn:"))
                .mapToLong(l -> Long.parseUnsignedLong(l.substring(7).trim(), 16) & 0x7fffffffL).findFirst()
                .orElseThrow();
    }

    @Test
    void commandNotFoundIs127() throws Exception {
        ExecutedTask task = executor.launch(ID, spec("/no/such/command"));
        assertEquals(127, exitOf(task).exitCode());
    }

    @Test
    void sigtermEndsTheTask() throws Exception {
        ExecutedTask task = executor.launch(ID, spec("sleep", "30"));
        task.stop("SIGTERM", Duration.ofSeconds(10));
        assertEquals(new ExitResult(143, 15, false, null), exitOf(task));
    }

    @Test
    void sigintReachesTheTask() throws Exception {
        // sh -c 'sleep' would be a background-free foreground child; a trap proves the shell itself got SIGINT
        ExecutedTask task = executor.launch(ID, spec("sh", "-c",
                "trap 'echo got-int; exit 7' INT; echo ready; while :; do sleep 0.05; done"));
        awaitOutput("ready");
        task.signal("SIGINT");
        assertEquals(7, exitOf(task).exitCode());
        assertTrue(stdout().contains("got-int"));
    }

    @Test
    void sigintKillsAPlainCommand() throws Exception {
        ExecutedTask task = executor.launch(ID, spec("sleep", "30"));
        task.stop("SIGINT", Duration.ofSeconds(10));
        assertEquals(new ExitResult(130, 2, false, null), exitOf(task));
    }

    @Test
    void stopEscalatesToSigkillWhenTermIsTrapped() throws Exception {
        ExecutedTask task = executor.launch(ID, spec("sh", "-c",
                "trap 'echo got-term' TERM; echo ready; while :; do sleep 0.05; done"));
        awaitOutput("ready");
        long started = System.nanoTime();
        task.stop("SIGTERM", Duration.ofMillis(500));
        assertTrue(System.nanoTime() - started >= TimeUnit.MILLISECONDS.toNanos(500), "waited for the timeout");
        assertEquals(new ExitResult(137, 9, false, null), exitOf(task));
        assertTrue(stdout().contains("got-term"));
    }

    @Test
    void stopKillsProcessesTheTaskLeftInItsGroup() throws Exception {
        Path childPid = dir.resolve("child.pid");
        ExecutedTask task = executor.launch(ID, spec("sh", "-c",
                "trap '' TERM; sleep 30 & echo $! > " + childPid + "; echo ready; wait"));
        awaitOutput("ready");
        long child = Long.parseLong(Files.readString(childPid).trim());
        task.stop("SIGTERM", Duration.ofMillis(200));
        assertEquals(9, exitOf(task).signal());
        executor.destroy(ID, false);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (ProcStat.of(child).filter(s -> !s.exited()).isPresent()) {
            assertTrue(System.nanoTime() < deadline, "the background child survived");
            Thread.sleep(20);
        }
    }

    @Test
    void otherSignalsAreDelivered() throws Exception {
        ExecutedTask task = executor.launch(ID, spec("sh", "-c",
                "trap 'echo got-usr1; exit 0' USR1; echo ready; while :; do sleep 0.05; done"));
        awaitOutput("ready");
        task.signal("SIGUSR1");
        assertEquals(0, exitOf(task).exitCode());
        assertTrue(stdout().contains("got-usr1"));
        assertThrows(DriverException.class, () -> task.signal("SIGUSR1"), "not running any more");
    }

    @Test
    void invalidSignalIsRefused() throws Exception {
        ExecutedTask task = executor.launch(ID, spec("sleep", "30"));
        assertThrows(DriverException.class, () -> task.signal("SIGNOPE"));
        assertThrows(DriverException.class, () -> task.signal("TERM; rm -rf /"));
        assertEquals(TaskStatus.State.RUNNING, task.status().state());
    }

    @Test
    void recoveredTaskIsStoppedWithItsExitCode() throws Exception {
        ExecutedTask first = executor.launch(ID, spec("sleep", "30"));
        Map<String, String> state = first.state();
        executor.close(); // the agent goes away; the task does not

        WrapperProcessExecutor next = new WrapperProcessExecutor();
        try {
            ExecutedTask recovered = next.recover(ID, state);
            assertEquals(first.pid(), recovered.pid());
            assertEquals(TaskStatus.State.RUNNING, recovered.status().state());
            recovered.stop("SIGTERM", Duration.ofSeconds(10));
            assertEquals(new ExitResult(143, 15, false, null), exitOf(recovered));
            next.destroy(ID, false);
        } finally {
            next.close();
        }
    }

    @Test
    void recoveredTaskExitIsNoticedByPolling() throws Exception {
        ExecutedTask first = executor.launch(ID, spec("sh", "-c", "sleep 1; exit 5"));
        Map<String, String> state = first.state();
        executor.close();

        WrapperProcessExecutor next = new WrapperProcessExecutor();
        try {
            ExecutedTask recovered = next.recover(ID, state);
            assertEquals(new ExitResult(5, 0, false, null), exitOf(recovered));
        } finally {
            next.close();
        }
    }

    @Test
    void taskThatExitedWhileNobodyWatchedIsRecoveredAsExited() throws Exception {
        ExecutedTask first = executor.launch(ID, spec("sh", "-c", "exit 4"));
        exitOf(first);
        Map<String, String> state = first.state();
        executor.close();

        WrapperProcessExecutor next = new WrapperProcessExecutor();
        try {
            ExecutedTask recovered = next.recover(ID, state);
            assertEquals(TaskStatus.State.EXITED, recovered.status().state());
            assertEquals(4, exitOf(recovered).exitCode());
            assertEquals(first.status().completedAt(), recovered.status().completedAt(), "when it really ended");
        } finally {
            next.close();
        }
    }

    @Test
    void recoveringInTheSameExecutorKeepsTheTask() throws Exception {
        ExecutedTask task = executor.launch(ID, spec("sleep", "30"));
        Map<String, String> withDriverKeys = new HashMap<>(task.state());
        withDriverKeys.put("exec.user", "nobody"); // a driver's own keys ride along
        assertTrue(task == executor.recover(ID, withDriverKeys), "a recycled driver finds the same task");
    }

    @Test
    void recoveryRefusesAPidThatIsAnotherProcessNow() throws Exception {
        ExecutedTask first = executor.launch(ID, spec("sleep", "30"));
        Map<String, String> state = new HashMap<>(first.state());
        state.put("executor.wrapper.start_ticks", "1"); // same pid, different process
        state.put("executor.task.start_ticks", "1");

        WrapperProcessExecutor next = new WrapperProcessExecutor();
        try {
            DriverException e = assertThrows(DriverException.class, () -> next.recover(ID, state));
            assertTrue(e.getMessage().startsWith("task not found"), e.getMessage());
        } finally {
            next.close();
        }
        assertEquals(TaskStatus.State.RUNNING, first.status().state(), "the real task was not touched");
    }

    @Test
    void destroyRefusesARunningTaskUnlessForced() throws Exception {
        ExecutedTask task = executor.launch(ID, spec("sleep", "30"));
        assertThrows(DriverException.class, () -> executor.destroy(ID, false));
        executor.destroy(ID, true);
        assertEquals(9, exitOf(task).signal());
        assertThrows(DriverException.class, () -> executor.task(ID));
    }

    @Test
    void execRunsInTheTasksEnvironment() throws Exception {
        ExecutedTask task = executor.launch(ID, spec("sleep", "30"));
        ExecResult result = task.exec(List.of("sh", "-c", "echo \"$GREETING\"; pwd; exit 2"), Duration.ofSeconds(10));
        assertEquals(2, result.exitCode());
        assertEquals("hello there\n" + dir.toRealPath() + "\n", new String(result.stdout(), StandardCharsets.UTF_8));
    }

    @Test
    void aForkingIsolationsChildGetsTheSignals() throws Exception {
        // a stand-in for unshare --fork: a parent that waits for a child that passes TERM on to the command
        Path forwarder = Files.writeString(dir.resolve("forwarder.sh"), """
                c= early=
                trap 'if [ -n "$c" ]; then kill -s TERM $c; else early=1; fi' TERM
                "$@" & c=$!
                [ -z "$early" ] || kill -s TERM $c
                while :; do wait $c; r=$?; kill -0 $c 2>/dev/null || exit $r; done
                """);
        Isolation forking = new Isolation(List.of("sh", "-c", "sh \"$0\" \"$@\"; exit $?", forwarder.toString()),
                true);
        ExecutedTask task = executor.launch(ID, new LaunchSpec(List.of("sh", "-c", "echo ready; exec sleep 30"), ENV,
                dir, dir.resolve("logs/stdout"), dir.resolve("logs/stderr"), dir.resolve("private"), "", forking));
        awaitOutput("ready");
        ProcStat child = ProcStat.of(task.pid()).orElseThrow();
        assertEquals(TaskState.fromMap(task.state()).wrapper().pid(), ProcStat.of(child.parent()).orElseThrow()
                .parent(), "the signal target is the isolation's child, the wrapper's grandchild");
        task.stop("SIGTERM", Duration.ofSeconds(10));
        assertEquals(new ExitResult(143, 15, false, null), exitOf(task));
    }

    @Test
    void runsAsTheGivenUser() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(HostTools.runningAsRoot(), "needs root");
        LaunchSpec asNobody = new LaunchSpec(List.of("sh", "-c", "id -u; id -g"), ENV, Path.of("/"),
                dir.resolve("logs/stdout"), dir.resolve("logs/stderr"), dir.resolve("private"), "nobody");
        ExecutedTask task = executor.launch(ID, asNobody);
        assertEquals(0, exitOf(task).exitCode());
        UserSwitch.Account nobody = UserSwitch.find("nobody").orElseThrow();
        assertEquals(nobody.uid() + "\n" + nobody.gid() + "\n", stdout());
        assertThrows(DriverException.class, () -> executor.launch(ID, new LaunchSpec(List.of("true"), ENV, dir,
                dir.resolve("o"), dir.resolve("e"), dir.resolve("private"), "no-such-user-here")));
    }

    @Test
    void shellExitStatusTranslation() {
        assertEquals(new ExitResult(0, 0, false, null), ShellExit.of(0));
        assertEquals(new ExitResult(128, 0, false, null), ShellExit.of(128));
        assertEquals(new ExitResult(130, 2, false, null), ShellExit.of(130));
        assertEquals(new ExitResult(255, 0, false, null), ShellExit.of(255));
        assertFalse(ShellExit.lost().successful());
    }

    @Test
    void procStatSurvivesOddCommandNames() {
        ProcStat stat = ProcStat.parse("42 (a) b (c)) S 1 40 40 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 12345 1 1");
        assertEquals('S', stat.state());
        assertEquals(40, stat.processGroup());
        assertEquals(12345, stat.startTicks());
    }
}
