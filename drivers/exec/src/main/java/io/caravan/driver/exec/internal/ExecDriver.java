package io.caravan.driver.exec.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionStage;

import io.caravan.driver.executor.ExecutedTask;
import io.caravan.driver.executor.ExecutorBackedDriver;
import io.caravan.driver.executor.LaunchSpec;
import io.caravan.driver.executor.ProcessExecutor;
import io.caravan.driver.executor.TaskCommand;
import io.caravan.plugin.api.driver.DriverCapabilities;
import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.DriverHealth;
import io.caravan.plugin.api.driver.DriverName;
import io.caravan.plugin.api.driver.ExecResult;
import io.caravan.plugin.api.driver.ExitResult;
import io.caravan.plugin.api.driver.TaskConfig;
import io.caravan.plugin.api.driver.TaskDriver;
import io.caravan.plugin.api.driver.TaskHandle;
import io.caravan.plugin.api.driver.TaskId;
import io.caravan.plugin.api.driver.TaskStatus;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * Nomad's exec driver: the command runs as {@code user} (default {@code nobody}) chrooted into its task directory,
 * with the chroot environment mounted read-only, the allocation directory at {@code /alloc}, its own pid, mount,
 * ipc and uts namespaces (see {@link ChrootInit}) and cgroup v1 memory and CPU limits. Like Nomad, it needs no
 * configuration to be enabled, only a Linux host where it runs as root; a {@code plugin "exec"} block, written as
 * {@code io.caravan.driver.exec~exec}, tunes it.
 */
@Component(service = TaskDriver.class, configurationPid = ExecDriver.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = ExecConfig.class, factory = true)
@DriverName(ExecDriver.NAME)
public final class ExecDriver implements ExecutorBackedDriver {
    static final String NAME = "exec";
    static final String PID = "io.caravan.driver.exec";
    private static final DriverCapabilities CAPABILITIES =
            new DriverCapabilities(true, true, DriverCapabilities.FS_ISOLATION_CHROOT);
    private static final String STATE_USER = "exec.user";
    private static final String STATE_ROOT = "exec.root";
    private static final long CHROOT_WAIT_NANOS = 10_000_000_000L;

    private final ProcessExecutor executor;
    private final ExecConfig config;
    private final HostSupport host;
    private final ChrootInit init;
    /** Who each task runs as and its chroot, for {@link #exec}; from the handle after a recovery. */
    private final Map<TaskId, ChrootTask> chroots = new ConcurrentHashMap<>();

    private record ChrootTask(String user, String root) {
    }

    @Activate
    public ExecDriver(@Reference ProcessExecutor executor, ExecConfig config) {
        this.executor = executor;
        this.config = config;
        this.host = HostSupport.probe(executor, NAME);
        this.init = host.usable() ? new ChrootInit(host.unshare(), host.shell(), host.chroot()) : null;
    }

    @Override
    public ProcessExecutor executor() {
        return executor;
    }

    @Override
    public DriverCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public DriverHealth health() {
        return host.health();
    }

    @Override
    public TaskHandle start(TaskConfig task) throws DriverException {
        if (!host.usable()) {
            throw new DriverException(NAME + " driver is not usable: " + host.health().description());
        }
        TaskCommand command = TaskCommand.of(NAME, task.config());
        String workDir = command.workDir().isEmpty() ? "/" : command.workDir();
        if (!workDir.startsWith("/")) {
            throw new DriverException(NAME + ": work_dir must be an absolute path inside the task's chroot");
        }
        CgroupV1 cgroups = cgroups(task.id());
        cgroups.create(task.memoryMb(), task.memoryMaxMb(), task.cpuMhz());
        Path allocDir = task.taskDir().resolveSibling("alloc");
        String user = task.user() == null || task.user().isBlank() ? config.config_default_user() : task.user();
        LaunchSpec spec = new LaunchSpec(command.argv(), task.env(), task.taskDir(), task.stdoutPath(),
                task.stderrPath(), task.taskDir().resolve("private"), user,
                init.isolation(task.taskDir(), allocDir, chrootEnv(), cgroups.dirs(), workDir));
        ExecutedTask executed;
        try {
            executed = executor.launch(task.id(), spec);
        } catch (DriverException e) {
            cgroups.remove();
            throw e;
        }
        ChrootTask chroot = new ChrootTask(user, task.taskDir().toString());
        chroots.put(task.id(), chroot);
        return handle(task.id(), executed, chroot);
    }

    private static TaskHandle handle(TaskId id, ExecutedTask executed, ChrootTask chroot) {
        Map<String, String> state = new HashMap<>(executed.state());
        state.put(STATE_USER, chroot.user());
        state.put(STATE_ROOT, chroot.root());
        return new TaskHandle(id, NAME, executed.startedAt(), state);
    }

    /** Only what exists on this host: Nomad's default list names directories not every distribution has. */
    private List<String> chrootEnv() {
        return List.of(config.config_chroot_env()).stream()
                .filter(dir -> Files.exists(Path.of(dir), java.nio.file.LinkOption.NOFOLLOW_LINKS)).toList();
    }

    private CgroupV1 cgroups(TaskId id) {
        return new CgroupV1(config.config_cgroup_parent(), id);
    }

    @Override
    public TaskHandle recover(TaskHandle handle) throws DriverException {
        ExecutedTask executed = executor.recover(handle.id(), handle.driverState());
        ChrootTask chroot = new ChrootTask(handle.driverState().getOrDefault(STATE_USER, config.config_default_user()),
                handle.driverState().getOrDefault(STATE_ROOT, ""));
        chroots.put(handle.id(), chroot);
        return handle(handle.id(), executed, chroot);
    }

    /** The executor's exit, plus whether the kernel's OOM killer ended the task. */
    @Override
    public CompletionStage<ExitResult> awaitExit(TaskId id) {
        return ExecutorBackedDriver.super.awaitExit(id).thenApply(exit -> withOom(id, exit));
    }

    @Override
    public TaskStatus inspect(TaskId id) throws DriverException {
        TaskStatus status = ExecutorBackedDriver.super.inspect(id);
        return status.exit() == null ? status : new TaskStatus(status.id(), status.state(), status.startedAt(),
                status.completedAt(), withOom(id, status.exit()));
    }

    private ExitResult withOom(TaskId id, ExitResult exit) {
        return !exit.oomKilled() && cgroups(id).oomKilled()
                ? new ExitResult(exit.exitCode(), exit.signal(), true, exit.error()) : exit;
    }

    @Override
    public void destroy(TaskId id, boolean force) throws DriverException {
        ExecutorBackedDriver.super.destroy(id, force);
        cgroups(id).remove();
        chroots.remove(id);
    }

    /**
     * Runs {@code argv} where the task runs: in its namespaces (entered through the task's init), chrooted, as its
     * user, with its environment.
     */
    @Override
    public ExecResult exec(TaskId id, List<String> argv, java.time.Duration timeout) throws DriverException {
        ExecutedTask task = executor.task(id);
        ChrootTask chroot = chroots.get(id);
        if (chroot == null || chroot.root().isEmpty()) {
            throw new DriverException("exec: the chroot of task " + id + " is not known");
        }
        awaitChroot(task.pid(), chroot.root());
        List<String> command = new ArrayList<>(List.of(host.nsenter(), "--target", Long.toString(task.pid()),
                "--mount", "--uts", "--ipc", "--pid", "--", host.chroot(), chroot.root(), "/usr/bin/env", "--chdir=/"));
        command.addAll(executor.asUser(chroot.user(), argv));
        return task.exec(command, timeout);
    }

    /**
     * Waits until the init has built the chroot: its last step hides {@code private} (where the executor's pid file
     * is) under an empty tmpfs, which shows through {@code /proc/<init>/root}, the init's view of its mounts.
     */
    private static void awaitChroot(long initPid, String root) throws DriverException {
        Path hidden = Path.of("/proc/" + initPid + "/root" + root + "/private");
        long deadline = System.nanoTime() + CHROOT_WAIT_NANOS;
        while (true) {
            try (java.util.stream.Stream<Path> files = Files.list(hidden)) {
                if (files.findAny().isEmpty()) {
                    return;
                }
            } catch (java.io.IOException e) {
                throw new DriverException("exec: task is not running: " + e.getMessage(), e);
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new DriverException("exec: the task's chroot is not ready");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DriverException("interrupted", e);
            }
        }
    }
}
