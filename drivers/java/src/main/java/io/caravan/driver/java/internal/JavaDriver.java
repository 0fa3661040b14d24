package io.caravan.driver.java.internal;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import io.caravan.driver.executor.ProcessExecutor;
import io.caravan.driver.executor.chroot.ChrootDriver;
import io.caravan.driver.executor.chroot.ChrootHost;
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
 * Nomad's java driver: the host's {@code java} runs {@code jar_path} or {@code class} (see {@link JavaCommand}) the
 * way the exec driver runs a command — as {@code user} (default {@code nobody}), chrooted into the task directory
 * with the chroot environment and the JDK's directory mounted read-only, in its own pid, mount, ipc and uts
 * namespaces, under cgroup v1 memory and CPU limits ({@link ChrootDriver}). As in Nomad, on Linux the driver is
 * undetected unless the agent is root and unhealthy without cgroups; with no java on the agent's PATH or in
 * JAVA_HOME it is undetected. {@code java -version} runs once, at the first health check, and is cached (a missing
 * java is looked for again every 30 s, as Nomad fingerprints). It needs
 * no configuration to be enabled; a {@code plugin "java"} block, written as {@code io.caravan.driver.java~java},
 * tunes it.
 */
@Component(service = TaskDriver.class, configurationPid = JavaDriver.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = JavaConfig.class, factory = true)
@DriverName(JavaDriver.NAME)
public final class JavaDriver extends ChrootDriver {
    static final String NAME = JavaCommand.NAME;
    static final String PID = "io.caravan.driver.java";
    static final String NOT_FOUND = "java not found on the agent's PATH or in JAVA_HOME";
    static final long RETRY_NANOS = 30_000_000_000L;

    private final Supplier<Optional<JavaRuntime>> finder;
    private volatile Optional<JavaRuntime> runtime;
    private volatile long missedAt;

    @Activate
    public JavaDriver(@Reference ProcessExecutor executor, JavaConfig config) {
        this(executor, config, JavaRuntime::detect);
    }

    JavaDriver(ProcessExecutor executor, JavaConfig config, Supplier<Optional<JavaRuntime>> finder) {
        super(NAME, executor, new Settings(List.of(config.config_chroot_env()), config.config_cgroup_parent(),
                config.config_default_user()));
        this.finder = finder;
    }

    /** Whether and why not tasks can be isolated here, whatever java there is. */
    ChrootHost isolation() {
        return host();
    }

    /**
     * The host's java: once found, kept for the driver's life; while there is none, looked for again at most every
     * {@link #RETRY_NANOS} (Nomad's fingerprint period), so a java installed later is detected.
     */
    Optional<JavaRuntime> runtime() {
        Optional<JavaRuntime> found = runtime;
        if (found != null && (found.isPresent() || System.nanoTime() - missedAt < RETRY_NANOS)) {
            return found;
        }
        synchronized (this) {
            found = runtime;
            if (found == null || (found.isEmpty() && System.nanoTime() - missedAt >= RETRY_NANOS)) {
                found = finder.get();
                missedAt = System.nanoTime();
                runtime = found;
            }
            return found;
        }
    }

    @Override
    public DriverHealth health() {
        if (!host().usable()) {
            return host().health();
        }
        return runtime().map(java -> DriverHealth.healthy(java.attributes()))
                .orElseGet(() -> DriverHealth.undetected(NOT_FOUND));
    }

    @Override
    public TaskHandle start(TaskConfig task) throws DriverException {
        JavaCommand command = JavaCommand.of(task.config());
        if (!host().usable()) {
            throw new DriverException(NAME + " driver is not usable: " + host().health().description());
        }
        JavaRuntime java = runtime().orElseThrow(() -> new DriverException(NAME + ": " + NOT_FOUND));
        return launch(task, command.argv(java.binary().toString()), command.workDir(),
                List.of(java.home().toString()));
    }
}
