package io.caravan.driver.executor;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.TaskId;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Launches and tracks task processes. The tasks it knows are keyed by {@link TaskId}; a driver keeps no table of its
 * own and maps its verbs onto {@link #task} and {@link ExecutedTask}. Losing an executor (agent restart, bundle
 * update) never stops a task: {@link #recover} re-attaches from {@link ExecutedTask#state()}.
 */
@ProviderType
public interface ProcessExecutor {

    /** Starts {@code spec} as task {@code id}; returns once the task's own process is known. */
    ExecutedTask launch(TaskId id, LaunchSpec spec) throws DriverException;

    /**
     * Re-attaches to a task launched earlier, from its {@link ExecutedTask#state()}. A task that exited meanwhile
     * is recovered as exited with its exit code; one that is gone without a trace (or whose pid now belongs to
     * another process) fails with a {@link DriverException}.
     */
    ExecutedTask recover(TaskId id, Map<String, String> state) throws DriverException;

    /** A host program's absolute path ({@code unshare}, {@code chroot}…), from the usual bin directories. */
    Optional<String> tool(String name);

    /**
     * {@code command} preceded by what makes it run as {@code user} (name or uid, with that user's groups) — what
     * {@link LaunchSpec#user()} does, for a driver that runs a command beside its task.
     */
    List<String> asUser(String user, List<String> command) throws DriverException;

    /** Whether tasks can be isolated and run as other users: the agent is root. */
    boolean runsAsRoot();

    /** The task launched or recovered as {@code id}; a {@link DriverException} if there is none. */
    ExecutedTask task(TaskId id) throws DriverException;

    /**
     * Forgets the task and removes what it left: refused while it runs unless {@code force}, which kills it first;
     * processes the task left behind in its process group are killed.
     */
    void destroy(TaskId id, boolean force) throws DriverException;
}
