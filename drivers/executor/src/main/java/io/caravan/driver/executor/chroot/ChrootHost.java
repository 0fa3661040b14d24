package io.caravan.driver.executor.chroot;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.caravan.driver.executor.Isolation;
import io.caravan.driver.executor.ProcessExecutor;
import io.caravan.plugin.api.driver.DriverHealth;

/**
 * Whether this host can run chrooted tasks (Nomad's exec and java drivers), found out once: Linux, root, the tools,
 * cgroup v1, and an {@code unshare} that is actually allowed (a container may forbid new namespaces). A usable host
 * reports itself healthy with the attribute {@code driver.<name>=1}.
 */
public final class ChrootHost {
    private static final List<String> TOOLS = List.of("unshare", "nsenter", "chroot", "setpriv", "env", "mount", "sh");

    private final DriverHealth health;
    private final String unshare;
    private final String shell;
    private final String chroot;
    private final String nsenter;

    private ChrootHost(DriverHealth health, String unshare, String shell, String chroot, String nsenter) {
        this.health = health;
        this.unshare = unshare;
        this.shell = shell;
        this.chroot = chroot;
        this.nsenter = nsenter;
    }

    public static ChrootHost probe(ProcessExecutor executor, String driverName) {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return unavailable(DriverHealth.undetected(driverName + " driver only runs on Linux"));
        }
        if (!executor.runsAsRoot()) {
            return unavailable(DriverHealth.undetected(driverName + " driver must run as root"));
        }
        for (String tool : TOOLS) {
            if (executor.tool(tool).isEmpty()) {
                return unavailable(DriverHealth.undetected(driverName + " driver needs " + tool
                        + " (util-linux, coreutils)"));
            }
        }
        if (!CgroupV1.available()) {
            return unavailable(unhealthy(driverName + " driver needs the cgroup v1 memory and cpu controllers under "
                    + CgroupV1.ROOT));
        }
        String unshare = executor.tool("unshare").orElseThrow();
        if (!succeeds(unshare, "--pid", "--fork", "--mount", "--ipc", "--uts", "true")) {
            return unavailable(unhealthy(driverName + " driver cannot create namespaces here (unshare failed)"));
        }
        return new ChrootHost(DriverHealth.healthy(Map.of("driver." + driverName, "1")), unshare,
                executor.tool("sh").orElseThrow(), executor.tool("chroot").orElseThrow(),
                executor.tool("nsenter").orElseThrow());
    }

    public DriverHealth health() {
        return health;
    }

    public boolean usable() {
        return health.state() == DriverHealth.State.HEALTHY;
    }

    /** The host's {@code chroot}; only on a {@link #usable} host. */
    public String chroot() {
        return chroot;
    }

    /** The host's {@code nsenter}; only on a {@link #usable} host. */
    public String nsenter() {
        return nsenter;
    }

    /**
     * The isolation for one task (see {@link ChrootInit}): {@code root} becomes {@code /}, with {@code chrootEnv}
     * (host directories) mounted read-only in it and {@code allocDir} at {@code /alloc}; the task joins
     * {@code cgroups} and starts in {@code workDir}, a path inside the chroot. Only on a {@link #usable} host.
     */
    public Isolation isolation(Path root, Path allocDir, Collection<String> chrootEnv, Collection<Path> cgroups,
                               String workDir) {
        if (!usable()) {
            throw new IllegalStateException("not usable: " + health.description());
        }
        return new ChrootInit(unshare, shell, chroot).isolation(root, allocDir, chrootEnv, cgroups, workDir);
    }

    private static DriverHealth unhealthy(String description) {
        return new DriverHealth(DriverHealth.State.UNHEALTHY, description, Map.of());
    }

    private static ChrootHost unavailable(DriverHealth health) {
        return new ChrootHost(health, null, null, null, null);
    }

    private static boolean succeeds(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
