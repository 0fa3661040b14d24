package io.caravan.client.internal.state;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.TaskState;
import io.caravan.plugin.api.driver.TaskHandle;
import io.caravan.plugin.api.driver.TaskId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's state dir ({@code client { state_dir }}, default {@code <data_dir>/client}), as small JSON files
 * written atomically (temp file, then rename):
 * <pre>
 * node.json                 {"NodeID": "…", "SecretID": "…"}  — the secret this node registers with
 * servers.json              {"Servers": ["host:port", …]}      — the servers the client last knew (RPC addresses)
 * registration.json         {"HasRegistered": true, "SignedIdentity": "&lt;JWT&gt;"} — the node registered once (its
 *                           introduction token is no longer presented), and its node identity
 * allocs/&lt;alloc_id&gt;.json    {"Version": 1, "Alloc": {Nomad's Allocation JSON},
 *                             "Tasks": {"&lt;task&gt;": {"State": {Nomad's TaskState JSON},
 *                                                  "Handle": {"Driver", "StartedAt", "DriverState"} | null}}}
 * </pre>
 * A handle is present while a driver task may be alive; it is what {@code TaskDriver.recover} re-attaches to.
 */
public final class ClientStateStore {
    public static final int VERSION = 1;

    private static final Logger LOG = LoggerFactory.getLogger(ClientStateStore.class);
    private static final ObjectMapper JSON = NomadJson.mapper();

    private final Path root;
    private final Path allocs;

    public ClientStateStore(Path root) {
        this.root = root;
        this.allocs = root.resolve("allocs");
        try {
            Files.createDirectories(allocs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create client state dir " + root, e);
        }
    }

    public Path root() {
        return root;
    }

    /** The node's identity as persisted. */
    public record NodeIdentity(String nodeId, String secretId) {
    }

    /** The secret of {@code nodeId}: the persisted one, or a new one (persisted) for a new node ID. */
    public synchronized String secretFor(String nodeId) {
        Path file = root.resolve("node.json");
        try {
            if (Files.isRegularFile(file)) {
                NodeIdentity known = JSON.readValue(file.toFile(), NodeIdentity.class);
                if (nodeId.equals(known.nodeId()) && known.secretId() != null && !known.secretId().isBlank()) {
                    return known.secretId();
                }
            }
            NodeIdentity fresh = new NodeIdentity(nodeId, UUID.randomUUID().toString());
            writeAtomically(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(fresh));
            return fresh.secretId();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or write " + file, e);
        }
    }

    /** Nomad's {@code HasRegistered} and the node identity JWT the servers last signed for the node. */
    public record Registration(boolean hasRegistered, String signedIdentity) {
        public static final Registration NEVER = new Registration(false, "");

        public Registration {
            signedIdentity = signedIdentity == null ? "" : signedIdentity;
        }

        @Override
        public String toString() {
            return "Registration[hasRegistered=" + hasRegistered + "]"; // the identity is a credential
        }
    }

    /** The node's registration record; {@link Registration#NEVER} when there is none or it cannot be read. */
    public synchronized Registration registration() {
        Path file = root.resolve("registration.json");
        if (!Files.isRegularFile(file)) {
            return Registration.NEVER;
        }
        try {
            return JSON.readValue(file.toFile(), Registration.class);
        } catch (IOException e) {
            LOG.warn("ignoring unreadable {}: {}", file, e.getMessage());
            return Registration.NEVER;
        }
    }

    /** The node registered; a non-empty {@code signedIdentity} replaces the one kept. Writes only on a change. */
    public synchronized void saveRegistration(String signedIdentity) {
        Registration before = registration();
        Registration after = new Registration(true, signedIdentity == null || signedIdentity.isEmpty()
                ? before.signedIdentity() : signedIdentity);
        if (after.equals(before)) {
            return;
        }
        Path file = root.resolve("registration.json");
        try {
            writeAtomically(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(after));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** A task's persisted handle; {@link #toHandle} rebuilds the driver's record. */
    public record PersistedHandle(String driver, String startedAt, Map<String, String> driverState) {
        public static PersistedHandle of(TaskHandle handle) {
            return new PersistedHandle(handle.driver(),
                    handle.startedAt() == null ? null : handle.startedAt().toString(), handle.driverState());
        }

        public TaskHandle toHandle(TaskId id) {
            return new TaskHandle(id, driver, startedAt == null ? null : Instant.parse(startedAt),
                    driverState == null ? Map.of() : driverState);
        }
    }

    public record PersistedTask(TaskState state, PersistedHandle handle) {
    }

    public record PersistedAlloc(int version, Allocation alloc, Map<String, PersistedTask> tasks) {
        public PersistedAlloc {
            tasks = tasks == null ? Map.of() : Map.copyOf(tasks);
        }
    }

    public synchronized void saveAlloc(PersistedAlloc alloc) {
        Path file = allocs.resolve(alloc.alloc().id() + ".json");
        try {
            writeAtomically(file, JSON.writeValueAsBytes(alloc));
        } catch (IOException e) {
            LOG.atError().addKeyValue("alloc_id", alloc.alloc().id()).addKeyValue("error", e.toString())
                    .log("failed to persist allocation state");
        }
    }

    public synchronized void deleteAlloc(String allocId) {
        try {
            Files.deleteIfExists(allocs.resolve(allocId + ".json"));
        } catch (IOException e) {
            LOG.atWarn().addKeyValue("alloc_id", allocId).addKeyValue("error", e.toString())
                    .log("failed to delete allocation state");
        }
    }

    /** Every persisted allocation; unreadable files are logged and skipped. */
    public synchronized List<PersistedAlloc> loadAllocs() {
        List<PersistedAlloc> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(allocs)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".json")).sorted()::iterator) {
                try {
                    PersistedAlloc alloc = JSON.readValue(file.toFile(), PersistedAlloc.class);
                    if (alloc.alloc() != null && alloc.alloc().id() != null) {
                        out.add(alloc);
                    }
                } catch (IOException e) {
                    LOG.atWarn().addKeyValue("file", file).addKeyValue("error", e.toString())
                            .log("skipping unreadable allocation state");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + allocs, e);
        }
        return out;
    }

    /** The servers a client last knew, as {@code servers.json} holds them. */
    public record ServerList(List<String> servers) {
        public ServerList {
            servers = servers == null ? List.of() : List.copyOf(servers);
        }
    }

    /** The servers saved by {@link #saveServers}; none when there is no file or it cannot be read (said once). */
    public synchronized List<String> servers() {
        Path file = root.resolve("servers.json");
        if (!Files.isRegularFile(file)) {
            return List.of();
        }
        try {
            return JSON.readValue(file.toFile(), ServerList.class).servers();
        } catch (IOException e) {
            LOG.warn("ignoring unreadable {}: {}", file, e.getMessage());
            return List.of();
        }
    }

    public synchronized void saveServers(List<String> servers) {
        Path file = root.resolve("servers.json");
        try {
            writeAtomically(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(new ServerList(servers)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    static void writeAtomically(Path file, byte[] bytes) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, bytes, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE, StandardOpenOption.SYNC);
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
