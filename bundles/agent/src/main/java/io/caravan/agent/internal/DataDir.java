package io.caravan.agent.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The agent's hold on its data dir: an exclusive lock (two agents on one data dir corrupt each other's state), the
 * persistent node ID, and the generated web-console password.
 */
final class DataDir implements AutoCloseable {
    private final Path root;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final boolean ephemeral;

    private DataDir(Path root, FileChannel lockChannel, FileLock lock, boolean ephemeral) {
        this.root = root;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.ephemeral = ephemeral;
    }

    /** @param ephemeral delete the whole directory on close ({@code -dev}) */
    static DataDir open(Path root, boolean ephemeral) throws IOException {
        Files.createDirectories(root);
        FileChannel channel = FileChannel.open(root.resolve("caravan.lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            channel.close();
            throw new IOException("data_dir " + root + " is in use by another agent");
        }
        return new DataDir(root, channel, lock, ephemeral);
    }

    Path root() {
        return root;
    }

    /** The node ID, generated once and kept; a {@code -dev} agent gets a new one each run. */
    String nodeId() throws IOException {
        Path file = root.resolve("node-id");
        if (Files.isRegularFile(file)) {
            String id = Files.readString(file, StandardCharsets.UTF_8).trim();
            try {
                return UUID.fromString(id).toString();
            } catch (IllegalArgumentException e) {
                throw new IOException(file + " does not hold a UUID");
            }
        }
        String id = UUID.randomUUID().toString();
        writePrivate(file, id);
        return id;
    }

    /** A random web-console password kept in the data dir, readable only by the agent's user. */
    Path consolePasswordFile() {
        return root.resolve("console-password");
    }

    String consolePassword() throws IOException {
        Path file = consolePasswordFile();
        if (Files.isRegularFile(file)) {
            return Files.readString(file, StandardCharsets.UTF_8).trim();
        }
        byte[] bytes = new byte[18];
        new SecureRandom().nextBytes(bytes);
        String password = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        writePrivate(file, password);
        return password;
    }

    /**
     * The port this server's Raft log listens on: {@code configured} when set (non-zero), else one the system picks at
     * the first start, kept in the data dir because peers record it in the Raft configuration. Nomad carries Raft over
     * the RPC port; here the RPC port speaks WebSocket and Ratis needs a port of its own. A system-picked port never
     * collides with ports configured for other agents on the same host.
     */
    int raftPort(String host, int configured) throws IOException {
        if (configured > 0) {
            return configured;
        }
        Path file = root.resolve("raft-port");
        if (Files.isRegularFile(file)) {
            String text = Files.readString(file, StandardCharsets.UTF_8).trim();
            try {
                return Integer.parseInt(text);
            } catch (NumberFormatException e) {
                throw new IOException(file + " does not hold a port number");
            }
        }
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
            probe.bind(new java.net.InetSocketAddress(host, 0));
            port = probe.getLocalPort();
        }
        writePrivate(file, Integer.toString(port));
        return port;
    }

    private static void writePrivate(Path file, String content) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, content + "\n", StandardCharsets.UTF_8);
        try {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException notPosix) {
            // Windows: the file keeps the directory's permissions.
        }
        Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void close() {
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException ignored) {
            // The lock dies with the process anyway.
        }
        if (ephemeral) {
            try (Stream<Path> paths = Files.walk(root)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // A leftover temp dir is harmless.
            }
        }
    }
}
