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

    /** Where a Raft port is picked when none is configured: below Linux's ephemeral range (outgoing connections
     * take ports from there, and one took a freshly picked Raft port before Ratis bound it) and below Nomad's dynamic
     * task ports (20000-32000). */
    static final int RAFT_PORT_LOW = 10000;
    static final int RAFT_PORT_HIGH = 20000;
    /** With the default serf port the Raft port is the one after it when free: predictable for firewalls. */
    static final int DEFAULT_RAFT_PORT = 4649;

    /**
     * The port this server's Raft log listens on: {@code configured} when set (non-zero), else the one picked at the
     * first start and kept in the data dir, because peers record it in the Raft configuration. Nomad carries Raft over
     * the RPC port; here the RPC port speaks WebSocket and Ratis needs a port of its own: 4649 for an agent on the
     * default ports, otherwise a free one in [10000, 20000), away from ports the system or tasks hand out.
     */
    int raftPort(String host, int configured, int serfPort) throws IOException {
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
        int port = serfPort == 4648 && bindable(host, DEFAULT_RAFT_PORT) ? DEFAULT_RAFT_PORT : -1;
        java.util.Random random = new java.security.SecureRandom();
        for (int attempt = 0; port < 0 && attempt < 200; attempt++) {
            int candidate = RAFT_PORT_LOW + random.nextInt(RAFT_PORT_HIGH - RAFT_PORT_LOW);
            if (bindable(host, candidate)) {
                port = candidate;
            }
        }
        if (port < 0) {
            throw new IOException("no free port for the Raft log in " + RAFT_PORT_LOW + "-" + RAFT_PORT_HIGH
                    + " on " + host + "; set ports { raft = N }");
        }
        writePrivate(file, Integer.toString(port));
        return port;
    }

    private static boolean bindable(String host, int port) {
        try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
            probe.bind(new java.net.InetSocketAddress(host, port));
            return true;
        } catch (IOException taken) {
            return false;
        }
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
