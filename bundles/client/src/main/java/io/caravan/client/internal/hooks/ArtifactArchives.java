package io.caravan.client.internal.hooks;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Unpacks downloaded artifacts the way go-getter does by file name: {@code .zip}, {@code .tar}, {@code .tar.gz} /
 * {@code .tgz}, and a lone {@code .gz} (decompressed to the name without {@code .gz}). Every entry must land inside
 * the destination (no "zip slip", also not through a symbolic link already on disk); symbolic and hard links in tar
 * files are skipped rather than followed; a tar entry's executable bits are kept. Not handled: bzip2 and xz
 * compression.
 */
final class ArtifactArchives {
    private static final int BLOCK = 512;

    private ArtifactArchives() {
    }

    enum Kind { ZIP, TAR, TAR_GZ, GZ }

    /** The archive kind of a file name, or null if go-getter would copy it as it is. */
    static Kind kind(String fileName) {
        String n = fileName.toLowerCase(Locale.ROOT);
        if (n.endsWith(".zip")) {
            return Kind.ZIP;
        }
        if (n.endsWith(".tar.gz") || n.endsWith(".tgz")) {
            return Kind.TAR_GZ;
        }
        if (n.endsWith(".tar")) {
            return Kind.TAR;
        }
        if (n.endsWith(".gz")) {
            return Kind.GZ;
        }
        return null;
    }

    static void extract(Kind kind, String fileName, Path archive, Path dest) throws IOException {
        Files.createDirectories(dest);
        try (InputStream in = new BufferedInputStream(Files.newInputStream(archive))) {
            switch (kind) {
                case ZIP -> unzip(in, dest);
                case TAR -> untar(in, dest);
                case TAR_GZ -> untar(new GZIPInputStream(in), dest);
                case GZ -> Files.copy(new GZIPInputStream(in),
                        inside(dest, fileName.substring(0, fileName.length() - ".gz".length())),
                        StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static void unzip(InputStream raw, Path dest) throws IOException {
        ZipInputStream zip = new ZipInputStream(raw);
        for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
            Path target = inside(dest, e.getName());
            if (e.isDirectory()) {
                Files.createDirectories(target);
            } else {
                Files.createDirectories(target.getParent());
                Files.copy(zip, target, StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** A ustar/GNU tar reader: regular files and directories; long names (GNU 'L', pax 'path'); links skipped. */
    private static void untar(InputStream in, Path dest) throws IOException {
        byte[] header = new byte[BLOCK];
        String longName = null;
        while (readFully(in, header)) {
            if (isZeros(header)) {
                return; // end of archive
            }
            String name = longName != null ? longName : name(header);
            longName = null;
            long size = octal(header, 124, 12);
            int mode = (int) octal(header, 100, 8);
            char type = (char) header[156];
            long padded = (size + BLOCK - 1) / BLOCK * BLOCK;
            switch (type) {
                case 'L' -> {
                    longName = cString(readBytes(in, size));
                    skip(in, padded - size);
                }
                case 'x' -> {
                    longName = paxPath(new String(readBytes(in, size), StandardCharsets.UTF_8));
                    skip(in, padded - size);
                }
                case '5' -> {
                    Files.createDirectories(inside(dest, name));
                    skip(in, padded);
                }
                case '0', '\0', '7' -> {
                    Path target = inside(dest, name);
                    Files.createDirectories(target.getParent());
                    Files.copy(new Bounded(in, size), target, StandardCopyOption.REPLACE_EXISTING);
                    skip(in, padded - size);
                    executable(target, mode);
                }
                default -> skip(in, padded); // links, devices, global pax headers: not extracted
            }
        }
    }

    /** {@code entry} resolved inside {@code dest}, or an error if it would escape it. */
    static Path inside(Path dest, String entry) throws IOException {
        Path root = dest.toAbsolutePath().normalize();
        Path target = root.resolve(entry.startsWith("/") ? entry.substring(1) : entry).normalize();
        if (!target.startsWith(root)) {
            throw new IOException("archive entry escapes the destination: " + entry);
        }
        if (!ArtifactSandbox.staysInside(root, target)) {
            throw new IOException("archive entry escapes the destination through a symbolic link: " + entry);
        }
        return target;
    }

    private static void executable(Path file, int mode) {
        if ((mode & 0111) == 0) {
            return;
        }
        try {
            Set<PosixFilePermission> perms = EnumSet.copyOf(Files.getPosixFilePermissions(file));
            perms.add(PosixFilePermission.OWNER_EXECUTE);
            if ((mode & 010) != 0) {
                perms.add(PosixFilePermission.GROUP_EXECUTE);
            }
            if ((mode & 01) != 0) {
                perms.add(PosixFilePermission.OTHERS_EXECUTE);
            }
            Files.setPosixFilePermissions(file, perms);
        } catch (IOException | UnsupportedOperationException e) {
            // not a POSIX file system: nothing to keep
        }
    }

    private static String name(byte[] h) {
        String name = cString(slice(h, 0, 100));
        String magic = cString(slice(h, 257, 6));
        if (magic.startsWith("ustar")) {
            String prefix = cString(slice(h, 345, 155));
            if (!prefix.isEmpty()) {
                return prefix + "/" + name;
            }
        }
        return name;
    }

    private static String paxPath(String records) {
        for (String record : records.split("\n")) {
            int space = record.indexOf(' ');
            if (space > 0 && record.startsWith("path=", space + 1)) {
                return record.substring(space + 1 + "path=".length());
            }
        }
        return null;
    }

    private static long octal(byte[] h, int offset, int length) {
        String s = cString(slice(h, offset, length)).trim();
        return s.isEmpty() ? 0 : Long.parseLong(s, 8);
    }

    private static byte[] slice(byte[] b, int offset, int length) {
        byte[] out = new byte[length];
        System.arraycopy(b, offset, out, 0, length);
        return out;
    }

    private static String cString(byte[] b) {
        int end = 0;
        while (end < b.length && b[end] != 0) {
            end++;
        }
        return new String(b, 0, end, StandardCharsets.UTF_8);
    }

    private static boolean isZeros(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean readFully(InputStream in, byte[] buffer) throws IOException {
        int n = in.readNBytes(buffer, 0, buffer.length);
        if (n == 0) {
            return false;
        }
        if (n < buffer.length) {
            throw new IOException("truncated tar archive");
        }
        return true;
    }

    private static byte[] readBytes(InputStream in, long size) throws IOException {
        if (size > 1 << 20) {
            throw new IOException("tar header record too large");
        }
        byte[] b = in.readNBytes((int) size);
        if (b.length < size) {
            throw new IOException("truncated tar archive");
        }
        return b;
    }

    private static void skip(InputStream in, long n) throws IOException {
        long left = n;
        while (left > 0) {
            long skipped = in.skip(left);
            if (skipped <= 0) {
                if (in.read() < 0) {
                    throw new IOException("truncated tar archive");
                }
                skipped = 1;
            }
            left -= skipped;
        }
    }

    /** At most {@code size} bytes of the underlying stream; closing it leaves the tar stream open. */
    private static final class Bounded extends InputStream {
        private final InputStream in;
        private long left;

        Bounded(InputStream in, long size) {
            this.in = in;
            this.left = size;
        }

        @Override
        public int read() throws IOException {
            if (left <= 0) {
                return -1;
            }
            int b = in.read();
            if (b >= 0) {
                left--;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left <= 0) {
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n > 0) {
                left -= n;
            }
            return n;
        }

        @Override
        public void close() {
        }
    }
}
