package io.caravan.consensus.internal;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import io.caravan.consensus.CommandHandler;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ratis' view of the {@link CommandHandler}: admits only this server's own submits, checked by the handler, into the
 * log; stamps the leader's time into each entry; applies entries through the handler; and keeps its snapshots as one
 * file plus MD5 in {@link SimpleStateMachineStorage} (Ratis' Counter example).
 */
final class CommandStateMachine extends BaseStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(CommandStateMachine.class);
    /** In the Raft directory: log indexes an operator told every server to pass over (one per line). */
    static final String SKIP_FILE = "skip-entries";

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final CommandHandler handler;
    private final ClientId ownClient;
    private final LongSupplier clock;
    private final Consumer<Throwable> halt;
    private volatile Set<Long> skipped = Set.of();
    private volatile Throwable applyFailure;
    /** How a snapshot file is named while it is written. */
    private static final String PARTIAL_PREFIX = "partial-";
    private static final long SNAPSHOT_CLOSE_WAIT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    private final long snapshotIntervalNanos;
    /** When the last snapshot was captured (or this started); the apply thread's only. */
    private long lastCaptureNanos;
    /** The thread writing a snapshot, if one is; guarded by this. */
    private Thread snapshotWriter;
    /** The index of a snapshot written and not yet reported to Ratis, else INVALID_LOG_INDEX; guarded by this. */
    private long snapshotWritten = RaftLog.INVALID_LOG_INDEX;

    /**
     * @param ownClient the client ID this server's {@link RaftNode} submits with; requests from any other client (a
     *     Ratis client on the Raft port) are refused before they reach the log
     * @param clock the leader's wall clock, read once per appended entry
     * @param halt told once when the handler throws; stops the Raft server (this class must not block the apply thread)
     * @param snapshotInterval at most one snapshot captured per interval (Nomad's {@code raft_snapshot_interval})
     */
    CommandStateMachine(CommandHandler handler, ClientId ownClient, LongSupplier clock, Consumer<Throwable> halt,
                        java.time.Duration snapshotInterval) {
        this.snapshotIntervalNanos = snapshotInterval.toNanos();
        this.lastCaptureNanos = System.nanoTime();
        this.handler = handler;
        this.ownClient = ownClient;
        this.clock = clock;
        this.halt = halt;
    }

    @Override
    public SimpleStateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        skipped = readSkipped(raftStorage.getStorageDir().getRoot().toPath().getParent().resolve(SKIP_FILE));
        restoreLatestSnapshot();
        // NEW -> STARTING -> RUNNING, so that pause() below has a running state machine to pause.
        getLifeCycle().transition(LifeCycle.State.STARTING);
        getLifeCycle().transition(LifeCycle.State.RUNNING);
    }

    /**
     * Called before a snapshot from the leader is moved into place. Ratis then asserts the state machine is PAUSED
     * before {@link #reinitialize}, but BaseStateMachine's pause does nothing: without this, a follower that fell behind
     * the leader's purged log failed that assertion and its Raft server shut down (found by RaftClusterTest). As Ratis'
     * own test state machine does.
     */
    @Override
    public void pause() {
        LifeCycle lifeCycle = getLifeCycle();
        if (lifeCycle.getCurrentState() == LifeCycle.State.RUNNING) {
            lifeCycle.transition(LifeCycle.State.PAUSING);
            lifeCycle.transition(LifeCycle.State.PAUSED);
        }
    }

    /** Called after the leader installed a snapshot on this server: the state is replaced by it, then runs again. */
    @Override
    public void reinitialize() throws IOException {
        restoreLatestSnapshot();
        LifeCycle lifeCycle = getLifeCycle();
        if (lifeCycle.getCurrentState() == LifeCycle.State.PAUSED) {
            lifeCycle.transition(LifeCycle.State.STARTING);
            lifeCycle.transition(LifeCycle.State.RUNNING);
        }
    }

    private void restoreLatestSnapshot() throws IOException {
        SingleFileSnapshotInfo snapshot = storage.loadLatestSnapshot();
        if (snapshot == null) {
            handler.restore(0, InputStream.nullInputStream());   // empty state; the whole log replays
            return;
        }
        Path file = snapshot.getFile().getPath();
        MD5Hash md5 = snapshot.getFile().getFileDigest();
        if (md5 != null) {
            MD5FileUtil.verifySavedMD5(file.toFile(), md5);
        }
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
            handler.restore(snapshot.getIndex(), in);
        }
        setLastAppliedTermIndex(snapshot.getTermIndex());
        LOG.info("Restored state from snapshot {} (index {})", file.getFileName(), snapshot.getIndex());
    }

    /**
     * Runs on the leader only, when it appends: the gate of the log and the one place that reads a clock. Only this
     * server's own submits pass (its {@link RaftNode} writes to the local server only, with a client ID that is random
     * per process), and each of their commands must pass the handler's {@link CommandHandler#validate}; anything else is
     * refused here and never appended.
     */
    @Override
    public TransactionContext startTransaction(RaftClientRequest request) {
        TransactionContext.Builder context = TransactionContext.newBuilder().setStateMachine(this)
                .setClientRequest(request);
        ByteString content = request.getMessage().getContent();
        try {
            if (!ownClient.equals(request.getClientId())) {
                throw new IllegalArgumentException("the Raft log takes writes from its own server only");
            }
            // A kind byte, then one command or a batch.
            boolean batch = SubmitBatcher.isBatchRequest(content);
            ByteString payload = SubmitBatcher.payload(content);
            for (byte[] command : batch ? CommandBatch.decode(payload) : List.of(payload.toByteArray())) {
                handler.validate(command);
            }
            long now = clock.getAsLong();
            return context.setLogData(batch ? StampedCommand.encodeBatch(now, payload) : StampedCommand.encode(now,
                    payload)).build();
        } catch (RuntimeException refused) {
            LOG.atDebug().addKeyValue("client", request.getClientId()).addKeyValue("error", refused.getMessage())
                    .log("write refused before the log");
            TransactionContext refusedContext = context.build();
            refusedContext.setException(refused instanceof IllegalArgumentException ? refused
                    : new IllegalArgumentException("undecodable write: " + refused, refused));
            return refusedContext;
        }
    }

    /**
     * A read-only request is only a barrier ({@link RaftNode#awaitConsistentRead}): Ratis calls this once this server
     * has applied up to the read index, and the caller then reads the state itself.
     */
    @Override
    public CompletableFuture<Message> query(Message request) {
        return CompletableFuture.completedFuture(Message.EMPTY);
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        long index = entry.getIndex();
        if (applyFailure != null) {
            // The server is stopping after a failed apply; nothing after that entry may be applied.
            return CompletableFuture.failedFuture(stopped(index));
        }
        if (skipped.contains(index)) {
            LOG.warn("Log entry {} not applied: it is listed in {} (an operator skipped it)", index, SKIP_FILE);
            updateLastAppliedTermIndex(entry.getTerm(), index);
            return CompletableFuture.completedFuture(Message.valueOf(ByteString.EMPTY));
        }
        ByteString data = entry.getStateMachineLogEntry().getLogData();
        if (StampedCommand.isBatch(data)) {
            return applyBatch(entry, data);
        }
        byte[] result;
        try {
            result = handler.apply(index, StampedCommand.timestamp(data), StampedCommand.command(data));
        } catch (RuntimeException | Error e) {
            failed(index, e);
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "Applying log entry " + index + " failed: " + e, e));
        }
        // State and last-applied move together, so a snapshot never claims an entry the state lacks.
        updateLastAppliedTermIndex(entry.getTerm(), index);
        byte[] reply = result == null ? new byte[0] : result;
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(reply)));
    }

    /**
     * Applies each command of a batch entry in order, all at the entry's index and stamp; the reply frames each
     * command's result ({@link CommandBatch}). If the handler throws, the server halts as for a single command, and the
     * failure carries the results of the commands before it ({@link BatchFailure}), so their submitters still learn
     * them.
     */
    private CompletableFuture<Message> applyBatch(LogEntryProto entry, ByteString data) {
        long index = entry.getIndex();
        List<byte[]> results = new ArrayList<>();
        try {
            long timestamp = StampedCommand.batchTimestamp(data);
            for (byte[] command : StampedCommand.batchCommands(data)) {
                byte[] result = handler.apply(index, timestamp, command);
                results.add(result == null ? new byte[0] : result);
            }
        } catch (RuntimeException | Error e) {
            failed(index, e);
            return CompletableFuture.failedFuture(new BatchFailure(index, results, e));
        }
        updateLastAppliedTermIndex(entry.getTerm(), index);
        return CompletableFuture.completedFuture(
                Message.valueOf(UnsafeByteOperations.unsafeWrap(CommandBatch.encode(0, results))));
    }

    private void failed(long index, Throwable e) {
        applyFailure = e;
        LOG.error("Applying log entry {} failed; stopping the Raft server so that this replica cannot diverge. "
                + "The entry stays in the log and is applied again when the server starts. If it fails on every "
                + "server, stop them all and run 'caravan operator raft skip-entry -data-dir <data_dir> {}' on each "
                + "before starting them again.", index, index, e);
        halt.accept(e);
    }

    /** The indexes listed in {@code file}, one per line ({@code #} comments allowed); none if it does not exist. */
    static Set<Long> readSkipped(Path file) throws IOException {
        if (!Files.exists(file)) {
            return Set.of();
        }
        Set<Long> indexes = new TreeSet<>();
        int lineNumber = 0;
        for (String line : Files.readAllLines(file)) {
            lineNumber++;
            String text = line.replaceFirst("#.*", "").trim();
            if (text.isEmpty()) {
                continue;
            }
            try {
                indexes.add(Long.parseLong(text));
            } catch (NumberFormatException e) {
                throw new IOException(file + ":" + lineNumber + ": not a log index: " + text, e);
            }
        }
        if (!indexes.isEmpty()) {
            LOG.warn("Log entries {} will be passed over, as listed in {}", indexes, file);
        }
        return Set.copyOf(indexes);
    }

    /**
     * Ratis calls this on the apply thread between entries, once {@code raft_snapshot_threshold} entries were applied
     * since the last snapshot it was told of; no snapshot is captured within {@code raft_snapshot_interval} of the last
     * (Nomad's Raft checks the threshold once per interval). The handler's state is captured here (exactly the last applied entry's)
     * and written to disk on a thread of its own, so applying goes on meanwhile; Ratis is told of the snapshot, and
     * purges the log before it, only at its first call after the file is complete and synced (until then this answers
     * {@link RaftLog#INVALID_LOG_INDEX}, and Ratis asks again after each applied batch). A snapshot that was not fully
     * written is never recorded, so the log before it is never purged.
     */
    @Override
    public long takeSnapshot() throws IOException {
        if (applyFailure != null) {
            throw new IOException("No snapshot: the Raft server is stopping after a failed apply", applyFailure);
        }
        synchronized (this) {
            if (snapshotWritten >= 0) {
                long written = snapshotWritten;
                snapshotWritten = RaftLog.INVALID_LOG_INDEX;
                return written;
            }
            if (snapshotWriter != null) {
                return RaftLog.INVALID_LOG_INDEX; // still writing
            }
        }
        if (System.nanoTime() - lastCaptureNanos < snapshotIntervalNanos) {
            return RaftLog.INVALID_LOG_INDEX; // raft_snapshot_interval: not yet (Ratis asks again after each batch)
        }
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() < 0) {
            return RaftLog.INVALID_LOG_INDEX;
        }
        CommandHandler.CapturedState state = handler.captureState();
        lastCaptureNanos = System.nanoTime();
        Thread writer = new Thread(() -> writeSnapshot(last, state), "caravan-raft-snapshot");
        writer.setDaemon(true);
        synchronized (this) {
            snapshotWriter = writer;
        }
        writer.start();
        return RaftLog.INVALID_LOG_INDEX;
    }

    private void writeSnapshot(TermIndex last, CommandHandler.CapturedState state) {
        long started = System.nanoTime();
        long written = RaftLog.INVALID_LOG_INDEX;
        try {
            File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
            Path dir = file.toPath().getParent();
            Files.createDirectories(dir);
            // Written aside and renamed: a crash mid-write leaves no file that looks like a snapshot.
            Path partial = Files.createTempFile(dir, PARTIAL_PREFIX, ".tmp");
            try {
                try (FileOutputStream fileOut = new FileOutputStream(partial.toFile());
                        OutputStream out = new BufferedOutputStream(fileOut)) {
                    state.writeTo(out);
                    out.flush();
                    fileOut.getFD().sync();
                }
                Files.move(partial, file.toPath(), StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(partial);
            }
            MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
            storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last));
            written = last.getIndex();
            LOG.atDebug().addKeyValue("index", last.getIndex())
                    .addKeyValue("duration_ms", (System.nanoTime() - started) / 1_000_000).log("Snapshot written");
        } catch (IOException | RuntimeException e) {
            LOG.atError().addKeyValue("index", last.getIndex()).setCause(e).log("Snapshot failed; not recorded");
        } finally {
            synchronized (this) {
                snapshotWriter = null;
                snapshotWritten = written;
                notifyAll();
            }
        }
    }

    /** Waits (bounded) for a snapshot being written, so that a stopping server does not cut it off. */
    @Override
    public void close() throws IOException {
        long deadline = System.nanoTime() + SNAPSHOT_CLOSE_WAIT_NANOS;
        synchronized (this) {
            while (snapshotWriter != null && System.nanoTime() < deadline) {
                try {
                    wait(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        super.close();
    }

    private IllegalStateException stopped(long index) {
        return new IllegalStateException(
                "Log entry " + index + " not applied: the Raft server is stopping after a failed apply", applyFailure);
    }

    /**
     * The handler threw on command {@code applied.size()} of the batch at {@code index}: the commands before it were
     * applied (with these results); it and those after it were not.
     */
    static final class BatchFailure extends IllegalStateException {
        private static final long serialVersionUID = 1L;
        final transient long index;
        final transient List<byte[]> applied;

        BatchFailure(long index, List<byte[]> applied, Throwable cause) {
            super("Applying command " + applied.size() + " of the batch at log entry " + index + " failed: " + cause,
                    cause);
            this.index = index;
            this.applied = List.copyOf(applied);
        }

        /** The batch failure in {@code error}'s cause chain, or null. */
        static BatchFailure in(Throwable error) {
            for (Throwable t = error; t != null; t = t.getCause()) {
                if (t instanceof BatchFailure partial) {
                    return partial;
                }
            }
            return null;
        }
    }

    /** Whether the handler has thrown; the server is then stopping or stopped. */
    boolean failed() {
        return applyFailure != null;
    }

    /** What the handler threw, or null. */
    Throwable applyFailure() {
        return applyFailure;
    }
}
