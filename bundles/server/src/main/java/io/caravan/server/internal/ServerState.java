package io.caravan.server.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.api.timer.SharedTimer;
import io.caravan.consensus.CommandHandler;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's state: Nomad's tables in one store, written only by the Raft log through {@link CommandHandler},
 * read by the endpoints. Exists while the agent is a server (PID {@code io.caravan.server}).
 */
@Component(service = {ServerState.class, CommandHandler.class}, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class ServerState implements CommandHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ServerState.class);
    private final ScheduledExecutorService timers;
    private final StateStore store;
    private final Fsm fsm;
    private final byte[] emptySnapshot;
    private final java.util.List<AppliedListener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Blocking-query deadlines and re-runs on the agent's shared timer: waiting queries hold no thread. */
    @Activate
    public ServerState(@Reference SharedTimer timer) {
        this(timer.timer("caravan-state"));
    }

    /** With a timer thread of its own (tests, benchmarks). */
    public ServerState() {
        this(ownTimer());
    }

    private static ScheduledExecutorService ownTimer() {
        java.util.concurrent.ScheduledThreadPoolExecutor pool = new java.util.concurrent.ScheduledThreadPoolExecutor(1,
                r -> {
                    Thread t = new Thread(r, "caravan-state");
                    t.setDaemon(true);
                    return t;
                });
        pool.setRemoveOnCancelPolicy(true); // a query answered early drops its deadline at once
        return pool;
    }

    private ServerState(ScheduledExecutorService timers) {
        this.timers = timers;
        store = StateStore.create(NomadTables.ALL, timers, timers);
        fsm = new Fsm(store);
        emptySnapshot = snapshotBytes(store);
    }

    /** A reload: nothing here changes live; without this method DS would restart the component on every change. */
    @Modified
    void modified() {
        // nothing to apply
    }

    @Deactivate
    void deactivate() {
        timers.shutdownNow();
    }

    StateStore store() {
        return store;
    }

    /**
     * Told of every command after it is applied, on the apply thread (in log order): how leader duties learn of new
     * evaluations and capacity without a second path. Must be quick and must not write through Raft inline.
     */
    interface AppliedListener {
        void applied(long index, Command command);

        /** The whole state was replaced from a snapshot. */
        void restored();
    }

    void addListener(AppliedListener listener) {
        listeners.add(listener);
    }

    void removeListener(AppliedListener listener) {
        listeners.remove(listener);
    }

    /** The leader's gate: only what decodes to one of our commands and passes its checks is appended. */
    @Override
    public void validate(byte[] command) {
        CommandCodec.decode(command).validate();
    }

    /**
     * An entry that does not decode or validate is rejected here, the same way on every replica, and recorded in the
     * log; it changes nothing. A write retried after its reply was lost reaches the log again with the same request ID:
     * that entry changes nothing either, and answers the first one's result. Anything the applier of a valid command
     * throws still stops the server (a bug).
     */
    @Override
    public byte[] apply(long index, long timestampMillis, byte[] command) {
        CommandCodec.Entry entry;
        try {
            entry = CommandCodec.decodeEntry(command);
            entry.command().validate();
        } catch (IllegalArgumentException invalid) {
            LOG.atWarn().addKeyValue("index", index).addKeyValue("error", invalid.getMessage())
                    .log("log entry rejected: not a valid command; nothing was changed");
            return CommandCodec.encodeResult(Command.Result.rejected(index, 400, invalid.getMessage()));
        }
        Fsm.Outcome outcome = fsm.apply(index, timestampMillis, entry.requestId(), entry.command());
        if (outcome.retry()) {
            LOG.atDebug().addKeyValue("index", index).addKeyValue("request", entry.requestId())
                    .addKeyValue("first", outcome.result().index())
                    .log("log entry not applied: its write was applied before (a retry); answering the first result");
        } else if (outcome.result().errorCode() == 0 && entry.command() instanceof Command.SnapshotRestoreCommit) {
            for (AppliedListener listener : listeners) {
                listener.restored();   // the whole state was replaced, as after a Raft snapshot
            }
        } else if (outcome.result().errorCode() == 0) {
            for (AppliedListener listener : listeners) {
                listener.applied(index, entry.command());
            }
        }
        return CommandCodec.encodeResult(outcome.result());
    }

    @Override
    public void snapshot(OutputStream out) throws IOException {
        store.snapshot().writeTo(out, NomadTables.codec());
    }

    /** The store's snapshot is an immutable root: capturing it costs nothing, writing it happens off the apply thread. */
    @Override
    public CapturedState captureState() {
        StateSnapshot captured = store.snapshot();
        return out -> captured.writeTo(out, NomadTables.codec());
    }

    @Override
    public void restore(long index, InputStream in) throws IOException {
        byte[] bytes = in.readAllBytes();
        store.restore(new ByteArrayInputStream(bytes.length == 0 ? emptySnapshot : bytes), NomadTables.codec());
        for (AppliedListener listener : listeners) {
            listener.restored();
        }
    }

    private static byte[] snapshotBytes(StateStore store) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            store.snapshot().writeTo(out, NomadTables.codec());
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
