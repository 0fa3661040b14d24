package io.caravan.client.internal.alloc;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.client.internal.hooks.ArtifactSandbox;
import io.caravan.client.internal.hooks.IdentitySigner;
import io.caravan.client.internal.hooks.LogRotator;
import io.caravan.client.internal.hooks.TemplateSource;
import io.caravan.client.internal.state.ClientStateStore;
import io.caravan.plugin.api.driver.TaskDriver;

/**
 * What the client lends its alloc and task runners: its threads (a scheduler for timers and coordination, a worker
 * pool for blocking driver and hook calls — nobody waits on a thread for a task to exit), time, drivers, the
 * current node, state persistence, log rotation, where client-side alloc updates go, which local files
 * artifacts may read, where service registrations go, where templates read variables and services, and who
 * signs the tasks' workload identities.
 */
public record RunnerServices(
        ScheduledExecutorService scheduler,
        Executor workers,
        Clock clock,
        Random random,
        Function<String, Optional<TaskDriver>> drivers,
        Supplier<Node> node,
        ClientStateStore state,
        LogRotator logs,
        Consumer<Allocation> updates,
        Path allocDirRoot,
        Supplier<Duration> maxKillTimeout,
        Supplier<ArtifactSandbox> artifactSandbox,
        ServiceRegistrar serviceRegistrar,
        TemplateSource templateSource,
        IdentitySigner identitySigner) {

    /** Without template data or workload identities (runners whose tests use neither). */
    public RunnerServices(ScheduledExecutorService scheduler, Executor workers, Clock clock, Random random,
                          Function<String, Optional<TaskDriver>> drivers, Supplier<Node> node, ClientStateStore state,
                          LogRotator logs, Consumer<Allocation> updates, Path allocDirRoot, Duration maxKillTimeout,
                          ArtifactSandbox artifactSandbox, ServiceRegistrar serviceRegistrar) {
        this(scheduler, workers, clock, random, drivers, node, state, logs, updates, allocDirRoot, () -> maxKillTimeout,
                () -> artifactSandbox, serviceRegistrar, TemplateSource.NONE, IdentitySigner.NONE);
    }

    /** Without service registration (runners whose tests do not look at services). */
    public RunnerServices(ScheduledExecutorService scheduler, Executor workers, Clock clock, Random random,
                          Function<String, Optional<TaskDriver>> drivers, Supplier<Node> node, ClientStateStore state,
                          LogRotator logs, Consumer<Allocation> updates, Path allocDirRoot, Duration maxKillTimeout,
                          ArtifactSandbox artifactSandbox) {
        this(scheduler, workers, clock, random, drivers, node, state, logs, updates, allocDirRoot, maxKillTimeout,
                artifactSandbox, ServiceRegistrar.NONE);
    }

    public TaskEvents events() {
        return new TaskEvents(clock);
    }
}
