package io.caravan.client.http.internal;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;

/**
 * One allocation's directory, as the fs endpoints may see it. Every path a caller gives is taken relative to the
 * allocation directory (Nomad's {@code /alloc/logs} means {@code <alloc_dir>/alloc/logs}) and is confined to it:
 *
 * <ol>
 * <li>lexically: a {@code ..} that climbs above the root is refused, whatever follows it;</li>
 * <li>through symlinks: the path is resolved with {@link Path#toRealPath} (every link, at any component) and must
 * still lie under the real root; a link that stays inside is followed, one that leads out is refused;</li>
 * <li>against races: files and directories are then opened one component at a time from the root, through
 * {@link SecureDirectoryStream} ({@code openat}) with {@code NOFOLLOW_LINKS}, along the resolved path. A component
 * swapped for a symlink after the check makes the open fail instead of leaving the directory.</li>
 * </ol>
 */
final class AllocFs {
    static final String ESCAPES = "Path escapes the alloc directory";
    static final String NOT_REGULAR = "not a regular file";

    private final String allocId;
    private final Path root;

    private AllocFs(String allocId, Path root) {
        this.allocId = allocId;
        this.root = root;
    }

    /** @throws IOException when the allocation directory itself cannot be resolved */
    static AllocFs of(String allocId, Path allocDir) throws IOException {
        return new AllocFs(allocId, allocDir.toRealPath());
    }

    String allocId() {
        return allocId;
    }

    Path root() {
        return root;
    }

    /**
     * Resolves a caller's path to the real path of an existing file or directory inside the allocation directory.
     *
     * @throws CaravanException 403 when the path leaves the directory, 404 when nothing is there, 400 when malformed
     */
    Path resolve(String userPath) {
        List<String> parts = clean(userPath);
        Path candidate = root;
        for (String part : parts) {
            candidate = candidate.resolve(part);
        }
        Path real;
        try {
            real = candidate.toRealPath();
        } catch (NoSuchFileException e) {
            // Refuse a missing path whose existing part already leads out, so no answer tells what lies outside.
            checkExistingAncestor(candidate);
            throw CaravanException.notFound("stat " + display(userPath) + ": no such file or directory");
        } catch (IOException e) {
            throw new CaravanException(ErrorCode.BAD_REQUEST, "stat " + display(userPath) + ": " + e.getMessage());
        }
        if (!real.startsWith(root)) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, ESCAPES);
        }
        return real;
    }

    private void checkExistingAncestor(Path candidate) {
        for (Path p = candidate.getParent(); p != null && p.startsWith(root); p = p.getParent()) {
            try {
                if (!p.toRealPath().startsWith(root)) {
                    throw new CaravanException(ErrorCode.PERMISSION_DENIED, ESCAPES);
                }
                return;
            } catch (IOException e) {
                // keep climbing to the deepest part that exists
            }
        }
    }

    /** The path's segments with {@code .} and {@code ..} applied; a {@code ..} above the root is refused. */
    static List<String> clean(String userPath) {
        if (userPath == null) {
            return List.of();
        }
        if (userPath.indexOf('\0') >= 0) {
            throw CaravanException.badRequest("path contains a NUL character");
        }
        List<String> out = new ArrayList<>();
        for (String part : userPath.split("/")) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                if (out.isEmpty()) {
                    throw new CaravanException(ErrorCode.PERMISSION_DENIED, ESCAPES);
                }
                out.remove(out.size() - 1);
            } else {
                out.add(part);
            }
        }
        return out;
    }

    /** {@code real} (from {@link #resolve}) relative to the root, with {@code /} separators; "" for the root. */
    String relative(Path real) {
        return root.relativize(real).toString().replace(real.getFileSystem().getSeparator(), "/");
    }

    /**
     * Whether a read of {@code real} must be refused as Nomad does: a task's {@code secrets} and {@code private}
     * directories are listed but never read through the API.
     */
    boolean isSecret(Path real) {
        Path rel = root.relativize(real);
        if (rel.getNameCount() < 2) {
            return false;
        }
        String second = rel.getName(1).toString().toLowerCase(java.util.Locale.ROOT);
        return !rel.getName(0).toString().equals("alloc") && (second.equals("secrets") || second.equals("private"));
    }

    /**
     * Opens a regular file found by {@link #resolve}, for reading, without following any link on the way. Anything
     * but a regular file is refused first: opening a FIFO a task made would block the reading thread. (A swap to a
     * FIFO between that check and the open is not caught: Java cannot open with {@code O_NONBLOCK}.)
     */
    SeekableByteChannel open(Path real) throws IOException {
        Path rel = root.relativize(real);
        if (rel.getNameCount() == 0 || rel.toString().isEmpty()) {
            throw new IOException("not a file: " + real);
        }
        BasicFileAttributes attrs = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (attrs.isSymbolicLink()) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, ESCAPES);
        }
        if (!attrs.isRegularFile()) {
            throw CaravanException.badRequest(NOT_REGULAR + ": " + relative(real));
        }
        DirectoryStream<Path> top = Files.newDirectoryStream(root);
        if (!(top instanceof SecureDirectoryStream<Path> dir)) {
            top.close();
            // No openat on this platform: the last component at least is not followed.
            return Files.newByteChannel(real, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
        }
        SecureDirectoryStream<Path> current = dir;
        try {
            for (int i = 0; i < rel.getNameCount() - 1; i++) {
                SecureDirectoryStream<Path> next = current.newDirectoryStream(rel.getName(i),
                        LinkOption.NOFOLLOW_LINKS);
                current.close();
                current = next;
            }
            return current.newByteChannel(rel.getName(rel.getNameCount() - 1),
                    Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
            throw e;
        } catch (IOException e) {
            throw refusedIfLinked(rel, e);
        } finally {
            current.close();
        }
    }

    /** A component that is (now) a symlink made the no-follow open fail: that is a refusal, not an I/O error. */
    private IOException refusedIfLinked(Path rel, IOException e) {
        for (int i = 1; i <= rel.getNameCount(); i++) {
            if (Files.isSymbolicLink(root.resolve(rel.subpath(0, i)))) {
                throw new CaravanException(ErrorCode.PERMISSION_DENIED, ESCAPES);
            }
        }
        return e;
    }

    /**
     * Opens a directory found by {@link #resolve} without following any link on the way; a secure stream where the
     * platform offers one, so entries' attributes are read relative to the open directory.
     */
    DirectoryStream<Path> openDir(Path real) throws IOException {
        Path rel = root.relativize(real);
        DirectoryStream<Path> top = Files.newDirectoryStream(root);
        if (!(top instanceof SecureDirectoryStream<Path> dir)) {
            top.close();
            return Files.newDirectoryStream(real);
        }
        SecureDirectoryStream<Path> current = dir;
        if (rel.toString().isEmpty()) {
            return current;
        }
        try {
            for (int i = 0; i < rel.getNameCount(); i++) {
                SecureDirectoryStream<Path> next = current.newDirectoryStream(rel.getName(i),
                        LinkOption.NOFOLLOW_LINKS);
                current.close();
                current = next;
            }
            SecureDirectoryStream<Path> result = current;
            current = null;
            return result;
        } catch (NoSuchFileException e) {
            throw e;
        } catch (IOException e) {
            throw refusedIfLinked(rel, e);
        } finally {
            if (current != null) {
                current.close();
            }
        }
    }

    private static String display(String userPath) {
        return userPath == null || userPath.isEmpty() ? "/" : userPath;
    }
}
