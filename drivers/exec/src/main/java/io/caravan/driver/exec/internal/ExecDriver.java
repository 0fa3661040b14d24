package io.caravan.driver.exec.internal;

import java.util.List;

import io.caravan.driver.executor.ProcessExecutor;
import io.caravan.driver.executor.TaskCommand;
import io.caravan.driver.executor.chroot.ChrootDriver;
import io.caravan.plugin.api.driver.DriverException;
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
 * Nomad's exec driver: the command runs as {@code user} (default {@code nobody}) chrooted into its task directory,
 * with the chroot environment mounted read-only, the allocation directory at {@code /alloc}, its own pid, mount,
 * ipc and uts namespaces and cgroup v1 memory and CPU limits (all of it {@link ChrootDriver}'s). Like Nomad, it
 * needs no configuration to be enabled, only a Linux host where it runs as root; a {@code plugin "exec"} block,
 * written as {@code io.caravan.driver.exec~exec}, tunes it.
 */
@Component(service = TaskDriver.class, configurationPid = ExecDriver.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = ExecConfig.class, factory = true)
@DriverName(ExecDriver.NAME)
public final class ExecDriver extends ChrootDriver {
    static final String NAME = "exec";
    static final String PID = "io.caravan.driver.exec";

    @Activate
    public ExecDriver(@Reference ProcessExecutor executor, ExecConfig config) {
        super(NAME, executor, new Settings(List.of(config.config_chroot_env()), config.config_cgroup_parent(),
                config.config_default_user()));
    }

    @Override
    public TaskHandle start(TaskConfig task) throws DriverException {
        TaskCommand command = TaskCommand.of(NAME, task.config());
        return launch(task, command.argv(), command.workDir(), List.of());
    }
}
