package io.caravan.driver.exec.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.caravan.plugin.api.driver.DriverHealth;

/**
 * Whether this host can run exec tasks, found out once at activation: Linux, root, the tools, cgroup v1, and an
 * {@code unshare} that is actually allowed (a container may forbid new namespaces).
 */
record HostSupport(DriverHealth health, String unshare, String shell, String chroot) {
    private static final List<Path> BIN_DIRS = List.of(Path.of("/usr/bin"), Path.of("/bin"), Path.of("/usr/sbin"),
            Path.of("/sbin"));

    static HostSupport probe(String driverName) {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return unavailable(DriverHealth.undetected("exec driver only runs on Linux"));
        }
        if (!runningAsRoot()) {
            return unavailable(DriverHealth.undetected("exec driver must run as root"));
        }
        for (String tool : List.of("unshare", "chroot", "setpriv", "env", "mount", "sh")) {
            if (find(tool).isEmpty()) {
                return unavailable(DriverHealth.undetected("exec driver needs " + tool + " (util-linux, coreutils)"));
            }
        }
        if (!CgroupV1.available()) {
            return unavailable(new DriverHealth(DriverHealth.State.UNHEALTHY,
                    "exec driver needs the cgroup v1 memory and cpu controllers under " + CgroupV1.ROOT,
                    java.util.Map.of()));
        }
        String unshare = find("unshare").get();
        String shell = find("sh").get();
        if (!succeeds(unshare, "--pid", "--fork", "--mount", "--ipc", "--uts", "true")) {
            return unavailable(new DriverHealth(DriverHealth.State.UNHEALTHY,
                    "exec driver cannot create namespaces here (unshare failed)", java.util.Map.of()));
        }
        return new HostSupport(DriverHealth.healthy(java.util.Map.of("driver." + driverName, "1")), unshare, shell,
                find("chroot").get());
    }

    boolean usable() {
        return health.state() == DriverHealth.State.HEALTHY;
    }

    private static HostSupport unavailable(DriverHealth health) {
        return new HostSupport(health, null, null, null);
    }

    private static boolean runningAsRoot() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream()
                    .filter(line -> line.startsWith("Uid:"))
                    .anyMatch(line -> "0".equals(line.split("\\s+")[2]));
        } catch (IOException e) {
            return false;
        }
    }

    private static Optional<String> find(String tool) {
        return BIN_DIRS.stream().map(dir -> dir.resolve(tool)).filter(Files::isExecutable).findFirst()
                .map(Path::toString);
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
