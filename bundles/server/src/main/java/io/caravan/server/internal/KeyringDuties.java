package io.caravan.server.internal;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import io.caravan.api.GoDuration;
import io.caravan.api.timer.SharedTimer;
import io.caravan.consensus.Leadership;
import io.caravan.server.internal.Keyring.RootKey;
import io.caravan.state.StateSnapshot;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyring's leader duties: the first root key, rotation once the active key is older than
 * {@code root_key_rotation_threshold}, and removal of inactive keys older than {@code root_key_gc_threshold} every
 * {@code root_key_gc_interval} (never one that still encrypts variables), and a full rotation's re-encryption of
 * variables ({@link #rekey}). Exists while this server leads (like {@link LeaderDuties}), kept apart from it so each
 * stays small. A new key is sealed to every published keystore; {@link KeyringService} fills in later ones.
 */
@Component(service = KeyringDuties.class, immediate = true, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class KeyringDuties {
    private static final Logger LOG = LoggerFactory.getLogger(KeyringDuties.class);
    private static final long CHECK_MS = 1000;
    /** Variables re-encrypted per Raft entry: bounded so that one entry stays small and writes interleave. */
    static final int REKEY_BATCH = 64;
    private static final long REKEY_WAIT_S = 30;

    /** The server block's keyring settings (Nomad's names and defaults, Go durations). */
    @interface Config {
        String root_key_rotation_threshold() default "720h";

        String root_key_gc_interval() default "10m";

        String root_key_gc_threshold() default "1h";
    }

    private final KeyringService keyring;
    private final Variables variables;
    private final RaftWrites writes;
    private final StateSnapshotSource state;
    /** A reload may change the three keyring keys (live in the agent's schema). */
    private volatile Duration rotation;
    private volatile Duration gcThreshold;
    private final AtomicBoolean writing = new AtomicBoolean();
    private ScheduledExecutorService timer;
    private ScheduledExecutorService rekeyer;
    private final AtomicBoolean rekeying = new AtomicBoolean();
    private long gcEvery;
    private java.util.concurrent.ScheduledFuture<?> gcTimer;

    /** Where the duties read the replicated state (the store's latest snapshot). */
    interface StateSnapshotSource {
        StateSnapshot snapshot();
    }

    @Activate
    public KeyringDuties(@Reference Leadership leadership, @Reference ServerState state,
                         @Reference KeyringService keyring, @Reference RaftWrites writes,
                         @Reference Variables variables, @Reference SharedTimer shared, Config config) {
        this(state.store()::snapshot, keyring, variables, writes, config);
        // The checks only read the state and send writes: the shared timer. Re-encryption waits for each batch's
        // write, so it runs on a worker of its own, which exists only while there is something to re-encrypt.
        timer = shared.timer("caravan-keyring-leader");
        rekeyer = shared.worker("caravan-keyring-rekey");
        timer.scheduleWithFixedDelay(this::ensureSafely, 0, CHECK_MS, TimeUnit.MILLISECONDS);
        timer.scheduleWithFixedDelay(this::rekeyIfDue, CHECK_MS, CHECK_MS, TimeUnit.MILLISECONDS);
        scheduleGc(config);
    }

    /** Without variables: no re-encryption (tests of the other duties). */
    KeyringDuties(StateSnapshotSource state, KeyringService keyring, RaftWrites writes, Config config) {
        this(state, keyring, null, writes, config);
    }

    KeyringDuties(StateSnapshotSource state, KeyringService keyring, Variables variables, RaftWrites writes,
                  Config config) {
        this.state = state;
        this.keyring = keyring;
        this.variables = variables;
        this.writes = writes;
        thresholds(config);
    }

    private void thresholds(Config config) {
        this.rotation = GoDuration.parse(config.root_key_rotation_threshold());
        this.gcThreshold = GoDuration.parse(config.root_key_gc_threshold());
    }

    /** Starts the GC timer, or restarts it when {@code root_key_gc_interval} changed. */
    private synchronized void scheduleGc(Config config) {
        long every = Math.max(1000, GoDuration.parse(config.root_key_gc_interval()).toMillis());
        if (gcTimer != null && every == gcEvery) {
            return;
        }
        if (gcTimer != null) {
            gcTimer.cancel(false);
        }
        gcEvery = every;
        gcTimer = timer.scheduleWithFixedDelay(this::gcSafely, every, every, TimeUnit.MILLISECONDS);
    }

    /** A reload: new thresholds for the next checks, and the GC timer rescheduled if its interval changed. */
    @Modified
    void modified(Config config) {
        thresholds(config);
        scheduleGc(config);
    }

    @Deactivate
    void deactivate() {
        if (timer != null) {
            timer.shutdownNow();
            rekeyer.shutdownNow();
        }
    }

    /** Hands a re-encryption pass to the worker when a key is being rotated out and no pass is running. */
    private void rekeyIfDue() {
        if (variables == null || state.snapshot().all(Keyring.ROOT_KEYS).noneMatch(RootKey::rekeying)
                || !rekeying.compareAndSet(false, true)) {
            return;
        }
        try {
            rekeyer.execute(() -> {
                try {
                    rekeySafely();
                } finally {
                    rekeying.set(false);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            rekeying.set(false);
        }
    }

    private void ensureSafely() {
        try {
            ensureActive();
        } catch (RuntimeException e) {
            LOG.atWarn().setCause(e).log("keyring check failed");
        }
    }

    private void rekeySafely() {
        try {
            while (rekey() > 0) {
                // batch after batch until nothing is left; each waits for its entry to apply
            }
        } catch (RuntimeException e) {
            LOG.atWarn().setCause(e).log("re-encrypting variables failed; retried");
        }
    }

    private void gcSafely() {
        try {
            gc();
        } catch (RuntimeException e) {
            LOG.atWarn().setCause(e).log("root key garbage collection failed");
        }
    }

    /**
     * The first key once this server's keystore is published, and a new one when the active key is older than the
     * rotation threshold. Empty when nothing was due (or a write is in flight).
     */
    Optional<CompletionStage<RootKey>> ensureActive() {
        StateSnapshot s = state.snapshot();
        if (s.get(Keyring.KEYSTORES, keyring.keystore().id()).isEmpty()) {
            return Optional.empty(); // our own keystore first, so that this leader can open what it creates
        }
        Optional<RootKey> active = s.all(Keyring.ROOT_KEYS).filter(RootKey::active).findFirst();
        long now = keyring.clock().millis() * 1_000_000L;
        if (active.isPresent() && now - active.get().createTime() < rotation.toNanos()) {
            return Optional.empty();
        }
        return Optional.of(rotate(active.isEmpty() ? "no active root key" : "root key rotation threshold reached"));
    }

    /** A new active key sealed to every published keystore; the previous one becomes inactive. */
    CompletionStage<RootKey> rotate(String why) {
        if (!writing.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(new IllegalStateException("a root key write is in flight"));
        }
        StateSnapshot s = state.snapshot();
        RootKey key = Keyring.row(Keyring.generate(), keyring.clock().millis() * 1_000_000L,
                s.all(Keyring.KEYSTORES).toList());
        LOG.atInfo().addKeyValue("key_id", key.keyId()).addKeyValue("reason", why).log("new root key");
        return writes.submit(new Command.RootKeyUpsert(key)).thenApply(r -> key.withIndexes(r.index(), r.index()))
                .whenComplete((r, e) -> writing.set(false));
    }

    /**
     * One step of a full rotation (Nomad's leader re-encryption job): re-encrypts up to {@link #REKEY_BATCH} variables
     * still under a rekeying key (or, from before encryption, in clear) with the active key in one Raft entry, and
     * waits for it; once none is left, marks the rekeying keys inactive. The result is how many variables it sent
     * (0: nothing to do, or done).
     */
    int rekey() {
        StateSnapshot s = state.snapshot();
        List<String> rekeying = s.all(Keyring.ROOT_KEYS).filter(RootKey::rekeying).map(RootKey::keyId).toList();
        Optional<RootKey> active = s.all(Keyring.ROOT_KEYS).filter(RootKey::active).findFirst();
        if (variables == null || rekeying.isEmpty() || active.isEmpty() || keyring.open(active.get()).isEmpty()) {
            return 0;
        }
        List<Variable> due = s.all(NomadTables.VARIABLES).map(Variable.Entry::variable)
                .filter(v -> v.data() == null ? !v.items().isEmpty() : rekeying.contains(v.data().keyId())).toList();
        if (due.isEmpty()) {
            for (String id : rekeying) {
                await(writes.submit(new Command.RootKeyRekeyed(id)));
                LOG.atInfo().addKeyValue("key_id", id).addKeyValue("new_key_id", active.get().keyId())
                        .log("variables re-encrypted; root key is now inactive");
            }
            return 0;
        }
        List<Command.VariableRekey.Rekeyed> batch = due.stream().limit(REKEY_BATCH)
                .map(v -> new Command.VariableRekey.Rekeyed(v.namespace(), v.path(), v.modifyIndex(),
                        variables.reseal(v, active.get()))).toList();
        await(writes.submit(new Command.VariableRekey(batch)));
        LOG.atInfo().addKeyValue("new_key_id", active.get().keyId()).addKeyValue("rekeyed", batch.size())
                .addKeyValue("remaining", due.size() - batch.size()).log("re-encrypting variables");
        return batch.size();
    }

    private static void await(CompletionStage<?> write) {
        try {
            write.toCompletableFuture().get(REKEY_WAIT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("keyring write failed: " + e.getMessage(), e);
        }
    }

    /**
     * Removes keys inactive for longer than the GC threshold, one write each; the result is how many were sent. A key
     * became inactive when the next newer key was created, so that is when its time starts (not its own creation: a
     * key rotated out after 30 days must not vanish minutes later, with the identities it signed). A key that still
     * encrypts a variable stays (Nomad's rule); a rekeying one is not inactive yet.
     */
    int gc() {
        long now = keyring.clock().millis() * 1_000_000L;
        StateSnapshot s = state.snapshot();
        List<RootKey> all = s.all(Keyring.ROOT_KEYS).toList();
        Set<String> used = s.all(NomadTables.VARIABLES).map(e -> e.variable().data())
                .filter(Objects::nonNull).map(Variable.Sealed::keyId).collect(Collectors.toSet());
        List<RootKey> old = all.stream().filter(k -> Keyring.INACTIVE.equals(k.state()))
                .filter(k -> !used.contains(k.keyId())).filter(k -> all.stream()
                .filter(newer -> newer.createIndex() > k.createIndex()).mapToLong(RootKey::createTime).min()
                .stream().anyMatch(inactiveSince -> now - inactiveSince > gcThreshold.toNanos())).toList();
        for (RootKey k : old) {
            LOG.atInfo().addKeyValue("key_id", k.keyId()).log("removing inactive root key past the GC threshold");
            writes.submit(new Command.RootKeyDelete(k.keyId()));
        }
        return old.size();
    }
}
