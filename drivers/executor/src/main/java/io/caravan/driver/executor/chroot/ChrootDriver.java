package io.caravan.driver.executor.chroot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import io.caravan.driver.executor.ExecutedTask;
import io.caravan.driver.executor.ExecutorBackedDriver;
import io.caravan.driver.executor.LaunchSpec;
import io.caravan.driver.executor.ProcessExecutor;
import io.caravan.plugin.api.driver.DriverCapabilities;
import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.DriverHealth;
import io.caravan.plugin.api.driver.ExecResult;
import io.caravan.plugin.api.driver.ExecSession;
import io.caravan.plugin.api.driver.ExitResult;
import io.caravan.plugin.api.driver.TaskConfig;
import io.caravan.plugin.api.driver.TaskHandle;
import io.caravan.plugin.api.driver.TaskId;
import io.caravan.plugin.api.driver.TaskStatus;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A driver whose tasks run as {@code user} (default {@link Settings#defaultUser}) chrooted into their task
 * directory, with the chroot environment mounted read-only, the allocation directory at {@code /alloc}, their own
 * pid, mount, ipc and uts namespaces (see {@link ChrootHost#isolation}) and cgroup v1 memory and CPU limits
 * ({@link CgroupV1}). A subclass writes {@code start} as a call to {@link #launch} with its command; recovery, the
 * OOM flag on exits, exec inside the chroot and the cgroups' removal on destroy are done here.
 */
@ConsumerType
public abstract class ChrootDriver implements ExecutorBackedDriver {
    private static final DriverCapabilities CAPABILITIES =
            new DriverCapabilities(true, true, DriverCapabilities.FS_ISOLATION_CHROOT);
    private static final long CHROOT_WAIT_NANOS = 10_000_000_000L;

    /**
     * The agent's settings for the driver: host directories mounted into every chroot (those missing on this host
     * are left out), the parent of the tasks' cgroups in each hierarchy, and who a task runs as when it sets no user.
     */
    public record Settings(List<String> chrootEnv, String cgroupParent, String defaultUser) {
        public Settings {
            chrootEnv = List.copyOf(chrootEnv);
        }
    }

    private final String name;
    private final ProcessExecutor executor;
    private final Settings settings;
    private final ChrootHost host;
    private final String stateUser;
    private final String stateRoot;
    /** Who each task runs as and its chroot, for {@link #exec}; from the handle after a recovery. */
    private final Map<TaskId, ChrootTask> chroots = new ConcurrentHashMap<>();

    private record ChrootTask(String user, String root) {
    }

    /** Probes the host (see {@link ChrootHost#probe}); {@code name} is the driver's, as in its handles. */
    protected ChrootDriver(String name, ProcessExecutor executor, Settings settings) {
        this.name = name;
        this.executor = executor;
        this.settings = settings;
        this.host = ChrootHost.probe(executor, name);
        this.stateUser = name + ".user";
        this.stateRoot = name + ".root";
    }

    @Override
    public final ProcessExecutor executor() {
        return executor;
    }

    protected final ChrootHost host() {
        return host;
    }

    protected final String name() {
        return name;
    }

    @Override
    public DriverCapabilities capabilities() {
        return CAPABILITIES;
    }

    /** The host's health: healthy, with {@code driver.<name>=1}, where tasks can be chrooted. */
    @Override
    public DriverHealth health() {
        return host.health();
    }

    /**
     * Starts {@code argv} for {@code task} chrooted into its task directory, in {@code workDir} (absolute inside the
     * chroot; blank is {@code /}), with {@code extraDirs} (host directories such as a JDK's) mounted read-only
     * beside the chroot environment unless it already holds them.
     */
    protected final TaskHandle launch(TaskConfig task, List<String> argv, String workDir, Collection<String> extraDirs)
            throws DriverException {
        if (!host.usable()) {
            throw new DriverException(name + " driver is not usable: " + host.health().description());
        }
        String wd = workDir == null || workDir.isBlank() ? "/" : workDir;
        if (!wd.startsWith("/")) {
            throw new DriverException(name + ": work_dir must be an absolute path inside the task's chroot");
        }
        CgroupV1 cgroups = cgroups(task.id());
        cgroups.create(task.memoryMb(), task.memoryMaxMb(), task.cpuMhz());
        Path allocDir = task.taskDir().resolveSibling("alloc");
        String user = task.user() == null || task.user().isBlank() ? settings.defaultUser() : task.user();
        LaunchSpec spec = new LaunchSpec(argv, task.env(), task.taskDir(), task.stdoutPath(), task.stderrPath(),
                task.taskDir().resolve("private"), user,
                host.isolation(task.taskDir(), allocDir, chrootEnv(extraDirs), cgroups.dirs(), wd));
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

    /**
     * The configured chroot environment that exists on this host, then each of {@code extraDirs} not inside one
     * of its directories; only absolute paths, and never {@code /} itself. Nomad's default list names directories not every distribution has.
     */
    final List<String> chrootEnv(Collection<String> extraDirs) {
        Set<String> dirs = new LinkedHashSet<>();
        Stream.concat(settings.chrootEnv().stream(), extraDirs.stream())
                .filter(dir -> Path.of(dir).isAbsolute() && Path.of(dir).getNameCount() > 0) // never the host's /
                .filter(dir -> Files.exists(Path.of(dir), LinkOption.NOFOLLOW_LINKS))
                .filter(dir -> dirs.stream().noneMatch(d -> Path.of(dir).startsWith(Path.of(d))
                        && !Files.isSymbolicLink(Path.of(d))))
                .forEach(dirs::add);
        return List.copyOf(dirs);
    }

    private TaskHandle handle(TaskId id, ExecutedTask executed, ChrootTask chroot) {
        Map<String, String> state = new HashMap<>(executed.state());
        state.put(stateUser, chroot.user());
        state.put(stateRoot, chroot.root());
        return new TaskHandle(id, name, executed.startedAt(), state);
    }

    private CgroupV1 cgroups(TaskId id) {
        return new CgroupV1(settings.cgroupParent(), id);
    }

    @Override
    public TaskHandle recover(TaskHandle handle) throws DriverException {
        ExecutedTask executed = executor.recover(handle.id(), handle.driverState());
        ChrootTask chroot = new ChrootTask(handle.driverState().getOrDefault(stateUser, settings.defaultUser()),
                handle.driverState().getOrDefault(stateRoot, ""));
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
    public ExecResult exec(TaskId id, List<String> argv, Duration timeout) throws DriverException {
        ExecutedTask task = executor.task(id);
        return task.exec(inChroot(id, task, List.of(), argv), timeout);
    }

    /** As {@link #exec}, with the streams connected; the TTY (if any) is opened on the host and handed in. */
    @Override
    public ExecSession execStreaming(TaskId id, List<String> argv, boolean tty) throws DriverException {
        ExecutedTask task = executor.task(id);
        List<String> session = List.of();
        if (tty) {
            // The terminal's foreground process group is script's, outside the task's pid namespace, where a shell
            // cannot see it: its job control fails ("Cannot set tty process group") and it exits 2. A session of its
            // own inside, with the terminal taken as its controlling one (as root, before the user switch), fixes it.
            String setsid = executor.tool("setsid").orElseThrow(
                    () -> new DriverException("exec with a TTY needs util-linux's setsid, not found on this host"));
            session = List.of(setsid, "--ctty", "--wait");
        }
        return task.execStreaming(inChroot(id, task, session, argv), tty);
    }

    /**
     * {@code argv} run in the task's namespaces (entered through its init), chrooted, as its user; {@code asRoot}
     * comes before the user switch.
     */
    private List<String> inChroot(TaskId id, ExecutedTask task, List<String> asRoot, List<String> argv)
            throws DriverException {
        ChrootTask chroot = chroots.get(id);
        if (chroot == null || chroot.root().isEmpty()) {
            throw new DriverException(name + ": the chroot of task " + id + " is not known");
        }
        awaitChroot(task.pid(), chroot.root());
        List<String> command = new ArrayList<>(List.of(host.nsenter(), "--target", Long.toString(task.pid()),
                "--mount", "--uts", "--ipc", "--pid", "--", host.chroot(), chroot.root(), "/usr/bin/env", "--chdir=/"));
        command.addAll(asRoot);
        command.addAll(executor.asUser(chroot.user(), argv));
        return command;
    }

    /**
     * Waits until the init has built the chroot: its last step hides {@code private} (where the executor's pid file
     * is) under an empty tmpfs, which shows through {@code /proc/<init>/root}, the init's view of its mounts.
     */
    private void awaitChroot(long initPid, String root) throws DriverException {
        Path hidden = Path.of("/proc/" + initPid + "/root" + root + "/private");
        long deadline = System.nanoTime() + CHROOT_WAIT_NANOS;
        while (true) {
            try (Stream<Path> files = Files.list(hidden)) {
                if (files.findAny().isEmpty()) {
                    return;
                }
            } catch (IOException e) {
                throw new DriverException(name + ": task is not running: " + e.getMessage(), e);
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new DriverException(name + ": the task's chroot is not ready");
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
