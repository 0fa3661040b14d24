package io.caravan.fingerprint.storage.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import io.caravan.plugin.api.fingerprint.FingerprintResult;
import io.caravan.plugin.api.fingerprint.FingerprintResult.HostResources;
import io.caravan.plugin.api.fingerprint.Fingerprinter;
import io.caravan.plugin.api.fingerprint.FingerprintName;
import io.caravan.plugin.api.fingerprint.HostFacts;

/**
 * Nomad's {@code storage} fingerprint: the device ({@code unique.storage.volume}) and size
 * ({@code unique.storage.bytestotal}) of the file system that holds the alloc dir ({@code <data_dir>/alloc}, or the
 * data dir until the client has made it). Like Nomad since GH-27019 the node's disk is the file system's total size:
 * there is no {@code unique.storage.bytesfree}, and it runs once, not periodically. Nomad asks {@code df}; this reads
 * {@code /proc/self/mountinfo} and the JDK's file store, which give the same numbers.
 */
@Component(service = Fingerprinter.class,
        property = "caravan.fingerprint.phase=host")
@FingerprintName("storage")
public final class StorageFingerprinter implements Fingerprinter {
    private static final long BYTES_PER_MIB = 1024 * 1024;

    /** The size of the file system holding a directory; the JDK's file store outside tests. */
    @FunctionalInterface
    interface TotalSpace {
        long bytes(Path directory) throws IOException;
    }

    private final Path root;
    private final TotalSpace totalSpace;

    public StorageFingerprinter() {
        this(Path.of("/"), directory -> Files.getFileStore(directory).getTotalSpace());
    }

    /** @param root where {@code proc/self/mountinfo} is looked up (a fixture in tests) */
    StorageFingerprinter(Path root, TotalSpace totalSpace) {
        this.root = root;
        this.totalSpace = totalSpace;
    }

    @Override
    public FingerprintResult fingerprint(HostFacts soFar) throws IOException {
        Path directory = storageDirectory(soFar.dataDir());
        String volume = volumeOf(directory);
        long total = totalSpace.bytes(nearestExisting(directory));
        return new FingerprintResult(
                Map.of("unique.storage.volume", volume, "unique.storage.bytestotal", Long.toString(total)),
                Map.of(), new HostResources(0, 0, 0, total / BYTES_PER_MIB));
    }

    /** Nomad measures the alloc dir; the client makes it under the data dir, perhaps after this runs. */
    static Path storageDirectory(Path dataDir) throws IOException {
        Path allocDir = dataDir.resolve("alloc");
        Path directory = Files.isDirectory(allocDir) ? allocDir : dataDir;
        return Files.exists(directory) ? directory.toRealPath() : directory.toAbsolutePath().normalize();
    }

    private static Path nearestExisting(Path directory) {
        Path existing = directory;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        return existing == null ? directory.getRoot() : existing;
    }

    /**
     * The source of the mount whose mount point is the longest prefix of the directory, as {@code df} prints it
     * ({@code /dev/vda}); a later line with the same mount point is mounted over an earlier one.
     */
    String volumeOf(Path directory) throws IOException {
        String volume = "";
        int longest = -1;
        for (String line : Files.readAllLines(root.resolve("proc/self/mountinfo"))) {
            List<String> fields = List.of(line.split(" "));
            int separator = fields.indexOf("-");
            if (fields.size() < 5 || separator < 0 || separator + 2 >= fields.size()) {
                continue;
            }
            Path mountPoint = Path.of(unescape(fields.get(4)));
            if (directory.startsWith(mountPoint) && mountPoint.getNameCount() >= longest) {
                longest = mountPoint.getNameCount();
                volume = unescape(fields.get(separator + 2));
            }
        }
        return volume;
    }

    /** mountinfo writes space, tab, newline and backslash as octal escapes ({@code \040}). */
    static String unescape(String field) {
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && i + 3 < field.length() && field.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
