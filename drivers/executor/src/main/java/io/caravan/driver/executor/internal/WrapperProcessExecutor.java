package io.caravan.driver.executor.internal;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.caravan.api.timer.SharedTimer;
import io.caravan.driver.executor.ExecutedTask;
import io.caravan.driver.executor.LaunchSpec;
import io.caravan.driver.executor.ProcessExecutor;
import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.TaskId;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each task under a {@link Wrapper}. While this executor started the wrapper, {@code Process.onExit} reports
 * its end at once; a recovered task is not our child, so one shared thread looks at {@code /proc} once a second for
 * every task (a cheap read each, and a safety net for the first kind). Deactivating stops watching and nothing else: the tasks keep running for the next executor to recover.
 */
@Component(service = ProcessExecutor.class)
public final class WrapperProcessExecutor implements ProcessExecutor {
    private static final Logger LOG = LoggerFactory.getLogger(WrapperProcessExecutor.class);
    static final Duration RECOVERED_POLL = Duration.ofSeconds(1);
    private static final Duration PID_FILE_WAIT = Duration.ofSeconds(10);
    private static final File DEV_NULL = new File("/dev/null");
    private static final int SIGTERM = 15;

    private final Wrapper wrapper;
    private final Kill kill;
    private final UserSwitch userSwitch = new UserSwitch(HostTools.find("setpriv").orElse(null));
    private final Map<TaskId, WrappedTask> tasks = new ConcurrentHashMap<>();
    private final ScheduledExecutorService poller;
    private final ScheduledExecutorService ticks;

    /** With a polling thread of its own (tests). */
    public WrapperProcessExecutor() {
        this(null, Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "caravan-executor-poll");
            t.setDaemon(true);
            return t;
        }));
    }

    /**
     * The agent's shared timer ticks; a poll (a liveness check and an exit-file read per task, and what completing a
     * task's exit runs) is handed to a worker thread, which exists only while there are tasks to poll.
     */
    @Activate
    public WrapperProcessExecutor(@Reference SharedTimer shared) {
        this(shared.timer("caravan-executor-poll-tick"), shared.worker("caravan-executor-poll"));
    }

    private WrapperProcessExecutor(ScheduledExecutorService ticks, ScheduledExecutorService poller) {
        this.wrapper = Wrapper.onThisHost();
        this.kill = new Kill(wrapper.shell());
        this.poller = poller;
        this.ticks = ticks;
        long every = RECOVERED_POLL.toMillis();
        if (ticks == null) {
            poller.scheduleWithFixedDelay(this::pollRecovered, every, every, TimeUnit.MILLISECONDS);
        } else {
            ticks.scheduleWithFixedDelay(() -> {
                if (!tasks.isEmpty()) {
                    poller.execute(this::pollRecovered);
                }
            }, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /** Stops watching; the tasks live on. */
    @Deactivate
    public void close() {
        if (ticks != null) {
            ticks.shutdownNow();
        }
        poller.shutdownNow();
    }

    @Override
    public ExecutedTask launch(TaskId id, LaunchSpec spec) throws DriverException {
        String launch = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        Path pidFile = spec.controlDir().resolve(launch + ".pid");
        Path exitFile = spec.controlDir().resolve(launch + ".exit");
        List<String> command = new ArrayList<>(spec.isolation().command());
        command.addAll(userSwitch.wrap(spec.user(), spec.command()));
        Process process;
        try {
            Files.createDirectories(spec.controlDir());
            createParent(spec.stdout());
            createParent(spec.stderr());
            ProcessBuilder builder = new ProcessBuilder(wrapper.command(pidFile, exitFile, command))
                    .directory(spec.workDir().toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(DEV_NULL))
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(spec.stdout().toFile()))
                    .redirectError(ProcessBuilder.Redirect.appendTo(spec.stderr().toFile()));
            builder.environment().clear();
            builder.environment().putAll(spec.env());
            process = builder.start();
        } catch (IOException e) {
            throw new DriverException("failed to launch " + spec.command() + ": " + e.getMessage(), e);
        }
        Instant startedAt = Instant.now();
        ProcessIdentity wrapperId = ProcessIdentity.current(process.pid());
        long pid = awaitTaskPid(pidFile, process);
        ProcessIdentity taskId = ProcessIdentity.current(spec.isolation().forks() ? awaitChild(pid, process) : pid);
        WrappedTask task = new WrappedTask(id, new TaskState(wrapperId, taskId, pidFile, exitFile, startedAt), kill);
        process.onExit().thenRun(task::wrapperEnded);
        tasks.put(id, task);
        LOG.atDebug().addKeyValue("task", id).addKeyValue("pid", taskId.pid()).log("task launched");
        return task;
    }

    @Override
    public ExecutedTask recover(TaskId id, Map<String, String> state) throws DriverException {
        TaskState parsed = TaskState.fromMap(state);
        WrappedTask known = tasks.get(id);
        if (known != null && known.taskState().equals(parsed)) {
            return known; // the driver was recycled, this executor was not
        }
        WrappedTask task = new WrappedTask(id, parsed, kill);
        task.checkExit();
        if (task.exited() && !Files.exists(parsed.exitFile())) {
            throw new DriverException("task not found: " + id + " (pid " + parsed.task().pid()
                    + " is gone or is another process now, and left no exit status)");
        }
        tasks.put(id, task);
        return task;
    }

    @Override
    public Optional<String> tool(String name) {
        return HostTools.find(name);
    }

    @Override
    public List<String> asUser(String user, List<String> command) throws DriverException {
        return userSwitch.wrap(user == null ? "" : user, command);
    }

    @Override
    public boolean runsAsRoot() {
        return HostTools.runningAsRoot();
    }

    @Override
    public ExecutedTask task(TaskId id) throws DriverException {
        WrappedTask task = tasks.get(id);
        if (task == null) {
            throw new DriverException("task not found: " + id);
        }
        return task;
    }

    @Override
    public void destroy(TaskId id, boolean force) throws DriverException {
        WrappedTask task = (WrappedTask) task(id);
        task.checkExit();
        if (!task.exited()) {
            if (!force) {
                throw new DriverException("task " + id + " is still running");
            }
            task.killNow();
        }
        task.killGroup();
        task.deleteFiles();
        tasks.remove(id, task);
    }

    /** The wrapper's child writes its pid before it becomes the task; that takes milliseconds. */
    private static long awaitTaskPid(Path pidFile, Process wrapper) throws DriverException {
        long deadline = System.nanoTime() + PID_FILE_WAIT.toNanos();
        do {
            long pid = readPid(pidFile);
            if (pid > 0) {
                return pid;
            }
            if (!wrapper.isAlive()) {
                return readPid(pidFile); // exited at once; -1 if not even the pid file was written
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DriverException("interrupted while starting the task", e);
            }
        } while (System.nanoTime() - deadline < 0);
        wrapper.destroyForcibly();
        throw new DriverException("the task did not start within " + PID_FILE_WAIT);
    }

    /**
     * The isolation command's child, once it is ready to pass signals on (it catches SIGTERM): a signal sent
     * earlier would be dropped, since a pid namespace's init ignores those it has no handler for. -1 if it ended.
     */
    private static long awaitChild(long pid, Process wrapper) throws DriverException {
        long deadline = System.nanoTime() + PID_FILE_WAIT.toNanos();
        while (pid > 0 && wrapper.isAlive()) {
            Optional<Long> child = ProcStat.childOf(pid);
            if (child.isPresent() && ProcStat.catches(child.get(), SIGTERM)) {
                return child.get();
            }
            if (System.nanoTime() - deadline >= 0) {
                wrapper.destroyForcibly();
                throw new DriverException("the task's isolation did not start its process within " + PID_FILE_WAIT);
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DriverException("interrupted while starting the task", e);
            }
        }
        return -1;
    }

    /** -1 until the file holds a whole line (it is read while being written). */
    private static long readPid(Path pidFile) {
        try {
            String text = Files.readString(pidFile);
            return text.endsWith("\n") ? Long.parseLong(text.trim()) : -1;
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    private static void createParent(Path file) throws IOException {
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
    }

    private void pollRecovered() {
        try {
            tasks.values().forEach(WrappedTask::checkExit);
        } catch (RuntimeException e) {
            LOG.warn("polling tasks failed", e);
        }
    }
}
