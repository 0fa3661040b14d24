package io.caravan.client;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.caravan.api.model.Allocation;
import io.caravan.plugin.api.driver.ExecSession;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The allocations this client runs, for the client-side HTTP endpoints ({@code /v1/client/fs/*},
 * {@code /v1/client/allocation/:id/restart|signal}). A service exists while the agent is a client.
 */
@ProviderType
public interface ClientAllocs {

    /** This client's node ID. */
    String nodeId();

    /** IDs of the allocations with a runner on this client (running or kept until garbage collection). */
    Set<String> allocIds();

    /**
     * The allocation's directory ({@code <alloc_dir>/<alloc_id>}, holding {@code alloc/} and one directory per
     * task), if the allocation is known here.
     */
    Optional<Path> allocDir(String allocId);

    /**
     * The allocation's namespace, if the allocation is known here: the namespace its ACL rules are checked in, whatever
     * namespace the call names.
     */
    Optional<String> namespace(String allocId);

    /**
     * Restarts one task ({@code taskName} non-null) or every running task of an allocation (Nomad's
     * {@code Allocations.Restart}); the restart does not count against the restart policy.
     *
     * @throws IllegalArgumentException for an unknown allocation or task
     */
    void restart(String allocId, String taskName);

    /**
     * Sends a signal ({@code SIGUSR1}, …) to one task, or to every running task when {@code taskName} is null.
     *
     * @throws IllegalArgumentException for an unknown allocation or task
     * @throws IllegalStateException    when the task's driver cannot send signals
     */
    void signal(String allocId, String taskName, String signal);

    /**
     * Garbage-collects a finished allocation on this client ({@code /v1/client/allocation/:id/gc}): its directory and
     * state are removed.
     *
     * @return false if a task of it still runs (nothing is done)
     * @throws IllegalArgumentException for an unknown allocation
     * @throws UnsupportedOperationException from implementations (test doubles) that do not collect
     */
    default boolean gc(String allocId) {
        throw new UnsupportedOperationException("gc");
    }

    /**
     * Starts {@code argv} in a running task, streams connected ({@code alloc exec}).
     *
     * @throws IllegalArgumentException for an unknown allocation or task, or a task that is not running
     * @throws UnsupportedOperationException when the task's driver cannot exec ({@code exec not supported})
     * @throws IllegalStateException when the driver failed to start the command
     */
    default ExecSession exec(String allocId, String taskName, List<String> argv, boolean tty) {
        throw new UnsupportedOperationException("exec not supported");
    }

    /**
     * Whether the task's driver isolates its filesystem (Nomad's {@code FSIsolation} other than {@code none}): exec
     * into a task that is not isolated runs on the node itself, which takes {@code alloc-node-exec} too.
     *
     * @throws IllegalArgumentException for an unknown allocation or task
     */
    default boolean fsIsolated(String allocId, String taskName) {
        return false;
    }

    /** The processes of each running task of the allocation (empty list when its driver cannot tell). */
    default Map<String, List<Long>> taskPids(String allocId) {
        return Map.of();
    }

    /**
     * The latest result of each of the allocation's service checks by check ID, in Nomad's {@code CheckQueryResult}
     * JSON shape ({@code /v1/client/allocation/:id/checks}).
     *
     * @throws IllegalArgumentException for an unknown allocation
     */
    default Map<String, ?> checks(String allocId) {
        return Map.of();
    }

    /**
     * The allocation as this client last received it (job, task group, allocated resources), if known here: what
     * per-allocation metrics are labelled with.
     */
    default Optional<Allocation> alloc(String allocId) {
        return Optional.empty();
    }
}
