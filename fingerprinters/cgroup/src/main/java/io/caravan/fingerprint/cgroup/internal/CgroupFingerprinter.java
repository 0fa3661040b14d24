package io.caravan.fingerprint.cgroup.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.osgi.service.component.annotations.Component;

import io.caravan.plugin.api.fingerprint.FingerprintResult;
import io.caravan.plugin.api.fingerprint.Fingerprinter;
import io.caravan.plugin.api.fingerprint.FingerprintName;
import io.caravan.plugin.api.fingerprint.HostFacts;

/**
 * Nomad's {@code cgroup} fingerprint. Current Nomad sets only {@code os.cgroups.version} ({@code 1} or {@code 2}),
 * and only when it could manage cgroups (v1: running as root; v2: the root controllers include cpuset, cpu, io,
 * memory and pids, and it is root or owns {@code nomad.slice}). Nomad before 1.7 set
 * {@code unique.cgroup.mountpoint} and {@code unique.cgroup.version} ({@code v1}/{@code v2}) every 15 s whenever
 * cgroups were mounted; they are kept so that older job constraints still match.
 */
@Component(service = Fingerprinter.class,
        property = "caravan.fingerprint.phase=host")
@FingerprintName("cgroup")
public final class CgroupFingerprinter implements Fingerprinter {
    static final String CGROUP_ROOT = "/sys/fs/cgroup";
    private static final Set<String> REQUIRED_V2_CONTROLLERS = Set.of("cpuset", "cpu", "io", "memory", "pids");
    private static final String NOMAD_V2_SLICE = "nomad.slice";

    private final Path root;

    public CgroupFingerprinter() {
        this(Path.of("/"));
    }

    /** @param root where {@code proc/self/} and {@code sys/fs/cgroup/} are looked up (a fixture in tests) */
    CgroupFingerprinter(Path root) {
        this.root = root;
    }

    /** Nomad before 1.7 re-ran the cgroup fingerprint every 15 s (cgroups may be mounted after start). */
    @Override
    public Optional<Duration> period() {
        return Optional.of(Duration.ofSeconds(15));
    }

    @Override
    public FingerprintResult fingerprint(HostFacts soFar) throws IOException {
        List<Mount> mounts = mounts();
        Optional<Mount> cgroupRoot = mounts.stream().filter(m -> m.mountPoint().equals(CGROUP_ROOT)).findFirst();
        Map<String, String> attributes = new HashMap<>();
        if (cgroupRoot.isPresent() && cgroupRoot.get().fsType().equals("tmpfs")) {
            // v1: a tmpfs holding one mount per controller hierarchy; Nomad < 1.7 named the first of them.
            mounts.stream().filter(m -> m.fsType().equals("cgroup")).findFirst().ifPresent(first -> {
                attributes.put("unique.cgroup.mountpoint", first.mountPoint());
                attributes.put("unique.cgroup.version", "v1");
            });
            if (effectiveUid() == 0) {
                attributes.put("os.cgroups.version", "1");
            }
        } else if (cgroupRoot.isPresent() && cgroupRoot.get().fsType().equals("cgroup2")) {
            attributes.put("unique.cgroup.mountpoint", CGROUP_ROOT);
            attributes.put("unique.cgroup.version", "v2");
            if (v2Manageable()) {
                attributes.put("os.cgroups.version", "2");
            }
        }
        return FingerprintResult.attributes(attributes);
    }

    record Mount(String mountPoint, String fsType) {
    }

    /**
     * {@code /proc/self/mountinfo}: {@code id parent maj:min root mountpoint options [optional…] - fstype source
     * superoptions}; mount points escape spaces as {@code \040}, which cgroup paths never contain.
     */
    List<Mount> mounts() throws IOException {
        Path mountinfo = root.resolve("proc/self/mountinfo");
        if (!Files.isReadable(mountinfo)) {
            return List.of();
        }
        return Files.readAllLines(mountinfo).stream()
                .map(line -> line.split(" "))
                .filter(fields -> fields.length > 6)
                .map(fields -> {
                    int separator = List.of(fields).indexOf("-");
                    String fsType = separator > 0 && separator + 1 < fields.length ? fields[separator + 1] : "";
                    return new Mount(fields[4], fsType);
                })
                .toList();
    }

    private boolean v2Manageable() throws IOException {
        Path controllers = cgroupPath("cgroup.controllers");
        if (!Files.isReadable(controllers)) {
            return false;
        }
        Set<String> available = Set.of(Files.readString(controllers).trim().split("\\s+"));
        if (!available.containsAll(REQUIRED_V2_CONTROLLERS)) {
            return false;
        }
        long uid = effectiveUid();
        if (uid == 0) {
            return true;
        }
        // cgroup delegation: a non-root agent may manage the slice it owns.
        Path slice = cgroupPath(NOMAD_V2_SLICE);
        return Files.exists(slice) && ((Number) Files.getAttribute(slice, "unix:uid")).longValue() == uid;
    }

    private Path cgroupPath(String name) {
        return root.resolve(CGROUP_ROOT.substring(1)).resolve(name);
    }

    /** The second number of the {@code Uid:} line of {@code /proc/self/status}; -1 when unknown. */
    long effectiveUid() throws IOException {
        Path status = root.resolve("proc/self/status");
        if (!Files.isReadable(status)) {
            return -1;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("Uid:")) {
                String[] ids = line.substring(4).trim().split("\\s+");
                return ids.length > 1 ? Long.parseLong(ids[1]) : -1;
            }
        }
        return -1;
    }
}
