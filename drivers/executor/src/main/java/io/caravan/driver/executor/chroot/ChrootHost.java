package io.caravan.driver.exec.internal;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.caravan.driver.executor.ProcessExecutor;
import io.caravan.plugin.api.driver.DriverHealth;

/**
 * Whether this host can run exec tasks, found out once at activation: Linux, root, the tools, cgroup v1, and an
 * {@code unshare} that is actually allowed (a container may forbid new namespaces).
 */
record HostSupport(DriverHealth health, String unshare, String shell, String chroot, String nsenter) {
    private static final List<String> TOOLS = List.of("unshare", "nsenter", "chroot", "setpriv", "env", "mount", "sh");

    static HostSupport probe(ProcessExecutor executor, String driverName) {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return unavailable(DriverHealth.undetected("exec driver only runs on Linux"));
        }
        if (!executor.runsAsRoot()) {
            return unavailable(DriverHealth.undetected("exec driver must run as root"));
        }
        for (String tool : TOOLS) {
            if (executor.tool(tool).isEmpty()) {
                return unavailable(DriverHealth.undetected("exec driver needs " + tool + " (util-linux, coreutils)"));
            }
        }
        if (!CgroupV1.available()) {
            return unavailable(unhealthy("exec driver needs the cgroup v1 memory and cpu controllers under "
                    + CgroupV1.ROOT));
        }
        String unshare = executor.tool("unshare").orElseThrow();
        if (!succeeds(unshare, "--pid", "--fork", "--mount", "--ipc", "--uts", "true")) {
            return unavailable(unhealthy("exec driver cannot create namespaces here (unshare failed)"));
        }
        return new HostSupport(DriverHealth.healthy(Map.of("driver." + driverName, "1")), unshare,
                executor.tool("sh").orElseThrow(), executor.tool("chroot").orElseThrow(),
                executor.tool("nsenter").orElseThrow());
    }

    boolean usable() {
        return health.state() == DriverHealth.State.HEALTHY;
    }

    private static DriverHealth unhealthy(String description) {
        return new DriverHealth(DriverHealth.State.UNHEALTHY, description, Map.of());
    }

    private static HostSupport unavailable(DriverHealth health) {
        return new HostSupport(health, null, null, null, null);
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
