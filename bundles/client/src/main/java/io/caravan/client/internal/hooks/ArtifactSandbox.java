package io.caravan.client.internal.hooks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import io.caravan.client.internal.hooks.ArtifactHook.ArtifactException;

/**
 * Which local files an artifact may copy, as Nomad sandboxes go-getter: only files inside the allocation directory,
 * plus the client's {@code artifact { filesystem_isolation_extra_paths = [...] }} (Nomad's {@code "f:r:/path"} /
 * {@code "d:rx:/path"} form, or a bare path), unless {@code disable_filesystem_isolation = true}. Paths are compared
 * after symbolic links are resolved, so a link cannot lead out.
 */
public record ArtifactSandbox(boolean disabled, List<Path> extraPaths) {
    public static final ArtifactSandbox ISOLATED = new ArtifactSandbox(false, List.of());

    public ArtifactSandbox {
        extraPaths = List.copyOf(extraPaths);
    }

    /** From the client block's {@code artifact} keys; an extra path without read permission adds nothing. */
    public static ArtifactSandbox of(boolean disabled, List<String> extraPaths) {
        List<Path> paths = new ArrayList<>();
        for (String entry : extraPaths) {
            String[] parts = entry.split(":", 3);
            if (parts.length == 3 && parts[0].matches("[fd]") && parts[1].matches("[rwxc]+")) {
                if (parts[1].contains("r")) {
                    paths.add(Paths.get(parts[2]).toAbsolutePath().normalize());
                }
            } else if (!entry.isBlank()) {
                paths.add(Paths.get(entry).toAbsolutePath().normalize());
            }
        }
        return new ArtifactSandbox(disabled, paths);
    }

    /**
     * {@code source} (a local file an artifact names) if this sandbox lets the task read it, with its links
     * resolved; a refusal that says why otherwise. Checked before the file is looked at, so a refusal tells nothing
     * about what exists outside.
     */
    Path readable(Path source, Path allocDir, String as) throws ArtifactException {
        Path file = source.toAbsolutePath().normalize();
        if (disabled) {
            return file;
        }
        boolean allowed = allows(file, allocDir);
        if (allowed && Files.exists(file)) {
            try {
                file = file.toRealPath();
                allowed = allows(file, allocDir.toRealPath());
            } catch (IOException e) {
                allowed = false;
            }
        }
        if (!allowed) {
            throw new ArtifactException("artifact source \"" + as + "\" is outside the allocation directory: local "
                    + "sources are sandboxed (client artifact filesystem_isolation_extra_paths, "
                    + "disable_filesystem_isolation)");
        }
        return file;
    }

    private boolean allows(Path file, Path allocDir) {
        return within(file, allocDir) || extraPaths.stream().anyMatch(p -> within(file, p) || within(file, realOr(p)));
    }

    /**
     * Whether {@code path}, once the part of it that exists has its links resolved, is still inside {@code root}:
     * a destination or archive entry must not reach outside through a symbolic link already on disk. Both are
     * absolute and normalised.
     */
    static boolean staysInside(Path root, Path path) throws IOException {
        Path existing = path;
        while (existing != null && existing.startsWith(root) && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        if (existing == null || !existing.startsWith(root)) {
            return true; // nothing of it exists yet under root: what will be created are plain directories
        }
        try {
            return existing.toRealPath().startsWith(realOr(root));
        } catch (IOException e) {
            return false; // a dangling link: where it leads is not known
        }
    }

    private static boolean within(Path path, Path root) {
        return path.startsWith(root.toAbsolutePath().normalize());
    }

    private static Path realOr(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            return path.toAbsolutePath().normalize();
        }
    }
}
