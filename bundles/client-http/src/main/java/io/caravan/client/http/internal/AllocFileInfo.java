package io.caravan.client.http.internal;

import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Nomad's {@code AllocFileInfo}: {@code FileMode} as Go prints an {@code os.FileMode} ({@code -rw-r--r--},
 * {@code drwxr-xr-x}, {@code dtrwxrwxrwx} for a sticky directory, {@code Lrwxrwxrwx} for a link), {@code ModTime} in
 * RFC 3339, {@code ContentType} only from {@code stat}.
 */
record AllocFileInfo(@JsonProperty("Name") String name, @JsonProperty("IsDir") boolean isDir,
                     @JsonProperty("Size") long size, @JsonProperty("FileMode") String fileMode,
                     @JsonProperty("ModTime") String modTime,
                     @JsonProperty("ContentType") @JsonInclude(JsonInclude.Include.NON_EMPTY) String contentType) {

    static final String OCTET_STREAM = "application/octet-stream";
    static final String TEXT = "text/plain; charset=utf-8";

    /** One entry of a listing: the entry itself, a link not followed (as Go's {@code os.ReadDir} reports it). */
    static AllocFileInfo entry(Path path) throws IOException {
        return of(path.getFileName().toString(), path, false, null);
    }

    /** {@code stat}: the resolved file, with its sniffed content type. */
    static AllocFileInfo stat(String name, Path real, AllocFs fs) throws IOException {
        BasicFileAttributes attrs = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        String type = OCTET_STREAM;
        if (attrs.isRegularFile() && !fs.isSecret(real)) {
            try (SeekableByteChannel in = fs.open(real)) {
                type = sniff(Channels.newInputStream(in).readNBytes(512));
            } catch (IOException | RuntimeException e) {
                // best effort, as Nomad's detection
            }
        }
        if (name.endsWith(".json")) {
            type = "application/json";
        }
        return of(name, real, true, type);
    }

    private static AllocFileInfo of(String name, Path path, boolean withType, String type) throws IOException {
        BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return new AllocFileInfo(name, attrs.isDirectory(), attrs.size(), mode(path, attrs),
                attrs.lastModifiedTime().toInstant().toString(), withType ? type : null);
    }

    /** Go's {@code FileMode.String()}: type letters ({@code dLDpSugct}) then {@code rwxrwxrwx}. */
    static String mode(Path path, BasicFileAttributes attrs) throws IOException {
        Integer unix = null;
        try {
            Map<String, Object> u = Files.readAttributes(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            unix = (Integer) u.get("mode");
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            // not a Unix file system: permissions from the POSIX view, or none
        }
        if (unix != null) {
            return goMode(unix);
        }
        StringBuilder out = new StringBuilder();
        out.append(attrs.isDirectory() ? "d" : attrs.isSymbolicLink() ? "L" : attrs.isOther() ? "?" : "-");
        Set<PosixFilePermission> perms = Set.of();
        try {
            perms = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS).permissions();
        } catch (UnsupportedOperationException e) {
            // no permissions to show
        }
        PosixFilePermission[] order = PosixFilePermission.values();
        String letters = "rwxrwxrwx";
        for (int i = 0; i < 9; i++) {
            out.append(perms.contains(order[i]) ? letters.charAt(i) : '-');
        }
        return out.toString();
    }

    /** From {@code st_mode} bits to Go's letters. */
    static String goMode(int st) {
        int type = st & 0170000;
        StringBuilder out = new StringBuilder();
        if (type == 0040000) {
            out.append('d');
        }
        if (type == 0120000) {
            out.append('L');
        }
        if (type == 0060000 || type == 0020000) {
            out.append('D');
        }
        if (type == 0010000) {
            out.append('p');
        }
        if (type == 0140000) {
            out.append('S');
        }
        if ((st & 04000) != 0) {
            out.append('u');
        }
        if ((st & 02000) != 0) {
            out.append('g');
        }
        if (type == 0020000) {
            out.append('c');
        }
        if ((st & 01000) != 0) {
            out.append('t');
        }
        if (out.length() == 0) {
            out.append('-');
        }
        String letters = "rwxrwxrwx";
        for (int i = 0; i < 9; i++) {
            out.append((st & (1 << (8 - i))) != 0 ? letters.charAt(i) : '-');
        }
        return out.toString();
    }

    /** A small part of Go's {@code http.DetectContentType}: a few signatures, else text or binary. */
    static String sniff(byte[] head) {
        if (head.length == 0) {
            return OCTET_STREAM;
        }
        if (startsWith(head, new byte[] {(byte) 0x1f, (byte) 0x8b, 8})) {
            return "application/x-gzip";
        }
        if (startsWith(head, "PK\u0003\u0004".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1))) {
            return "application/zip";
        }
        if (startsWith(head, "%PDF-".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1))) {
            return "application/pdf";
        }
        if (startsWith(head, new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'})) {
            return "image/png";
        }
        for (byte b : head) {
            int c = b & 0xff;
            if (c <= 0x08 || c == 0x0b || (c >= 0x0e && c <= 0x1a) || (c >= 0x1c && c <= 0x1f)) {
                return OCTET_STREAM;
            }
        }
        return TEXT;
    }

    private static boolean startsWith(byte[] head, byte[] magic) {
        if (head.length < magic.length) {
            return false;
        }
        for (int i = 0; i < magic.length; i++) {
            if (head[i] != magic[i]) {
                return false;
            }
        }
        return true;
    }
}
