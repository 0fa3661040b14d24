package io.caravan.driver.rawexec.internal;

import java.nio.file.Path;
import java.util.Map;

import io.caravan.driver.executor.ExecutedTask;
import io.caravan.driver.executor.ExecutorBackedDriver;
import io.caravan.driver.executor.LaunchSpec;
import io.caravan.driver.executor.ProcessExecutor;
import io.caravan.driver.executor.TaskCommand;
import io.caravan.plugin.api.driver.DriverCapabilities;
import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.DriverHealth;
import io.caravan.plugin.api.driver.DriverName;
import io.caravan.plugin.api.driver.TaskConfig;
import io.caravan.plugin.api.driver.TaskDriver;
import io.caravan.plugin.api.driver.TaskHandle;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * Nomad's raw_exec: the task's command runs on the host as the agent's user (or {@code user}, when the agent is
 * root), without isolation, in the task directory (or {@code work_dir}, relative to it). One component per factory
 * configuration of {@code io.caravan.driver.raw_exec}, which the agent writes as
 * {@code io.caravan.driver.raw_exec~raw_exec}; like Nomad it stays undetected, and refuses tasks, until that
 * configuration enables it. Processes are the shared {@link ProcessExecutor}'s, so a recycled component
 * (configuration change, bundle update) leaves tasks running for {@link #recover}.
 */
@Component(service = TaskDriver.class, configurationPid = RawExecDriver.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = RawExecConfig.class, factory = true)
@DriverName(RawExecDriver.NAME)
public final class RawExecDriver implements ExecutorBackedDriver {
    static final String NAME = "raw_exec";
    static final String PID = "io.caravan.driver.raw_exec";
    static final String DISABLED = "disabled: set plugin \"raw_exec\" { config { enabled = true } } to use it";
    private static final DriverCapabilities CAPABILITIES =
            new DriverCapabilities(true, true, DriverCapabilities.FS_ISOLATION_NONE);

    private final ProcessExecutor executor;
    private final boolean enabled;

    @Activate
    public RawExecDriver(@Reference ProcessExecutor executor, RawExecConfig config) {
        this.executor = executor;
        this.enabled = config.config_enabled();
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
        return enabled ? DriverHealth.healthy(Map.of("driver." + NAME, "1")) : DriverHealth.undetected(DISABLED);
    }

    @Override
    public TaskHandle start(TaskConfig task) throws DriverException {
        if (!enabled) {
            throw new DriverException(NAME + " is " + DISABLED);
        }
        TaskCommand command = TaskCommand.of(NAME, task.config());
        Path workDir = command.workDir().isEmpty() ? task.taskDir() : task.taskDir().resolve(command.workDir());
        ExecutedTask executed = executor.launch(task.id(), new LaunchSpec(command.argv(), task.env(), workDir,
                task.stdoutPath(), task.stderrPath(), controlDir(task.taskDir()), task.user()));
        return new TaskHandle(task.id(), NAME, executed.startedAt(), executed.state());
    }

    /** Nomad's task-private directory: the wrapper's pid and exit files live there. */
    static Path controlDir(Path taskDir) {
        return taskDir.resolve("private");
    }

    @Override
    public TaskHandle recover(TaskHandle handle) throws DriverException {
        ExecutedTask executed = executor.recover(handle.id(), handle.driverState());
        return new TaskHandle(handle.id(), NAME, executed.startedAt(), executed.state());
    }
}
