package io.caravan.consensus.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import io.caravan.consensus.Applied;
import io.caravan.consensus.BatchingCommandHandler;
import io.caravan.consensus.CommandHandler;
import io.caravan.consensus.NotLeaderException;
import io.caravan.consensus.Replicator;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.protocol.exceptions.ReconfigurationInProgressException;
import org.apache.ratis.protocol.exceptions.ServerNotReadyException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Raft server of the group, over Ratis' gRPC transport with mutual TLS ({@link RaftTls}: the agent's certificates
 * under {@code tls.rpc}, else certificates bound to the gossip key), and the
 * {@link Replicator} on top of it. Plain Java: the DS component only decides when it starts and when the service is
 * visible, and tests drive it directly.
 *
 * <p>Writes go straight into the local server (no client round trip over the network); Nomad forwards writes to the
 * leader at the RPC layer, so a follower answers {@link NotLeaderException} with the leader's address.
 */
final class RaftNode implements Replicator, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RaftNode.class);

    /** Fixed, so that every server of every start joins the same group; membership grows by configuration. */
    static final RaftGroupId GROUP_ID =
            RaftGroupId.valueOf(UUID.nameUUIDFromBytes("io.caravan.consensus/global".getBytes(StandardCharsets.UTF_8)));

    private static final long RETRY_DELAY_MS = 20;
    private static final long POLL_MS = 5;
    private static final long CLOSE_WAIT_SECONDS = 30;
    private static final long STEP_DOWN_TIMEOUT_MS = 5_000;
    /** How long a server being added may take to answer the leader (see {@link #properties}). */
    static final TimeDuration STAGING_TIMEOUT = TimeDuration.valueOf(10, TimeUnit.SECONDS);
    /**
     * Ratis writes in flight before further submits are batched (see {@link SubmitBatcher}), when the handler is a
     * {@link BatchingCommandHandler}.
     */
    static final int MAX_WRITES_IN_FLIGHT = 2;
    /** A batch entry's size bound: half of what one append RPC carries, and never more than this. */
    private static final int MAX_BATCH_BYTES = 512 * 1024;

    private final RaftSettings settings;
    private final RaftPeerId selfId;
    private final RaftGroup group;
    private final CommandStateMachine stateMachine;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** Submits not yet answered; Ratis does not always answer a request that is pending when the server closes. */
    private final Set<CompletableFuture<Applied>> pending = ConcurrentHashMap.newKeySet();
    private final List<Runnable> stopListeners = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService retries;
    private static final long RETRY_THREAD_IDLE_S = 5;
    private final Consumer<RaftProperties> tuning;
    private final SubmitBatcher batcher;
    private volatile RaftServer server;
    private volatile RaftServer.Division division;
    /** When this server last heard from a leader, as of the last {@link #lastLeaderContactMillis}; 0 before. */
    private volatile long leaderSeenNanos;
    private final RaftMetrics metrics = new RaftMetrics(this::metricsState);

    RaftNode(RaftSettings settings, CommandHandler handler, LongSupplier clock) {
        this(settings, handler, clock, properties -> { });
    }

    /**
     * @param tuning adjusts the Ratis properties after {@link #properties}; for tests only (tiny log segments, so that
     *     the log is purged, and lagging followers get a snapshot, after a few entries instead of 32 MB)
     */
    RaftNode(RaftSettings settings, CommandHandler handler, LongSupplier clock, Consumer<RaftProperties> tuning) {
        this.tuning = tuning;
        this.settings = settings;
        this.selfId = RaftPeerId.valueOf(settings.self().id());
        this.group = RaftGroup.valueOf(GROUP_ID, settings.peers().stream()
                .map(p -> RaftPeer.newBuilder().setId(p.id()).setAddress(p.address()).build())
                .toList());
        this.stateMachine = new CommandStateMachine(handler, clientId, clock, this::halt, settings.snapshotInterval());
        // Only a handler that takes several commands at one index gets batches; for others, writes go out as they come.
        // Retries, and the start of each batch of consistent reads: a thread only while there are some.
        java.util.concurrent.ScheduledThreadPoolExecutor retrying = new java.util.concurrent.ScheduledThreadPoolExecutor(
                1, r -> {
                    Thread t = new Thread(r, "caravan-raft-retry");
                    t.setDaemon(true);
                    return t;
                });
        retrying.setKeepAliveTime(RETRY_THREAD_IDLE_S, TimeUnit.SECONDS);
        retrying.allowCoreThreadTimeOut(true);
        this.retries = retrying;
        this.batcher = new SubmitBatcher(this::write, retries,
                handler instanceof BatchingCommandHandler ? MAX_WRITES_IN_FLIGHT : Integer.MAX_VALUE,
                maxBatchBytes(settings, tuning));
    }

    /** Builds and starts the Raft server: restores the latest snapshot, replays the log; does not wait for a leader. */
    void start() throws IOException {
        RaftProperties properties = properties(settings);
        tuning.accept(properties);
        if (settings.secret() == null && settings.tls() == null) {
            LOG.warn("The Raft port {} is plaintext: without encrypt (the gossip key) anyone who reaches it can change "
                    + "the Raft group; set encrypt", settings.self().address());
        }
        try {
            server = Tccl.withBundleLoader(() -> {
                RaftServer s = RaftServer.newBuilder()
                        .setServerId(selfId)
                        .setGroup(group)
                        .setStateMachine(stateMachine)
                        .setProperties(properties)
                        .setParameters(parameters(settings))
                        .setOption(RaftStorage.StartupOption.RECOVER)   // formats a new directory, recovers an old one
                        .build();
                s.start();
                return s;
            });
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("Cannot start the Raft server", e);
        }
        if (closed.get()) {   // closed while starting: the close found no server to stop
            server.close();
            throw new IOException("Raft server " + selfId + " was closed while starting");
        }
        division = server.getDivision(GROUP_ID);
        LOG.info("Raft server {} started on {} with peers {}", selfId, settings.self().address(), peers());
    }

    static RaftProperties properties(RaftSettings settings) {
        RaftProperties p = new RaftProperties();
        // gRPC, not Netty: Ratis' Netty transport has no TLS. Server, admin and client services share the one port.
        RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
        GrpcConfigKeys.Server.setHost(p, settings.self().host());
        GrpcConfigKeys.Server.setPort(p, settings.self().port());
        // NIO: the bundle leaves netty's native libraries out (STACK.md §5), and the same code path runs in plain-JVM
        // tests, where the natives would be on the class path.
        GrpcConfigKeys.setUseEpoll(p, false);
        RaftServerConfigKeys.setStorageDir(p, List.of(settings.dir().toFile()));
        // Election timeouts of 0.3-0.6 s, not Ratis' 150-300 ms: with several agents on 2 busy cores a GC pause or a
        // scheduling delay made leaders step down mid-write; 0.5-1 s made failover take 2 s (bench/RESULTS.md).
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(300, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(600, TimeUnit.MILLISECONDS));
        if (settings.peers().size() == 1 && !Files.isDirectory(settings.dir().resolve(GROUP_ID.getUuid().toString()))) {
            // A new group of one (a dev agent, bootstrap_expect = 1): no other server can lead or vote, so waiting out
            // a first election timeout only delays the agent's start-up. Not with state on disk: a restarted member
            // of a cluster starts with itself alone in its settings, and its log names the others.
            RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p, TimeDuration.valueOf(5, TimeUnit.MILLISECONDS));
            RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p, TimeDuration.valueOf(10, TimeUnit.MILLISECONDS));
        }
        // Ratis' gRPC appender sleeps between attempts to a failing follower: 1 s after 10 errors, 5 s after 30 (its
        // default). A server back from a restart then waited seconds to be caught up; a refused connection is cheap,
        // so retry every 0.1-0.3 s (randomized) for as long as it takes.
        RaftServerConfigKeys.Log.Appender.setRetryPolicy(p, "1ms,10, 100ms,20, 300ms,1000000000");
        // A server being added must answer the leader within the staging timeout, else the change fails (NOPROGRESS);
        // Ratis' default, 3 election timeouts (1.8 s), was too short for the first gRPC+TLS exchange with a server
        // just restarted on a busy 2-core VM, and a retry after that failure once left the leader in a staging that
        // never ended ("Reconfiguration is already in progress" for every later change).
        RaftServerConfigKeys.setStagingTimeout(p, STAGING_TIMEOUT);
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, settings.snapshotThreshold());
        // As Nomad: no snapshot on shutdown; a restart restores the last snapshot and replays the log after it.
        RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(p, false);
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.setPurgePreservationLogNum(p, settings.trailingLogs());
        // Ratis would append a metadata entry (the commit index) after each commit: twice the log writes for a hint
        // that only speeds up a restarted follower. Leaders re-learn the commit index by committing their first entry.
        RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
        // One append must be able to carry the largest command (Replicator.MAX_COMMAND_BYTES) with room to spare: an
        // entry larger than the appender's buffer never reaches the followers, and the leader loses its majority.
        // Ratis requires its (direct, always allocated) write buffer to hold one full append.
        long appendLimit = 2L * MAX_COMMAND_BYTES;
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, SizeInBytes.valueOf(appendLimit));
        RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(appendLimit + 1024));
        // Consistent reads (awaitConsistentRead) by Raft's read index, on followers too (Ratis' DEFAULT option refuses
        // reads off the leader). The leader's lease (0.9 of the minimum election timeout since a majority last
        // answered) spares it a heartbeat round per read; past the lease it confirms its leadership by one.
        RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, true);
        // Ratis' pool for client requests grows without bound by default (a thread per concurrent request, kept 60 s).
        // This log has at most MAX_WRITES_IN_FLIGHT writes and one batch of reads out at a time, so a fixed pool of
        // that size serves it; more threads only add to an agent's count under a burst of reads or writes.
        RaftServerConfigKeys.ThreadPool.setClientCached(p, false);
        RaftServerConfigKeys.ThreadPool.setClientSize(p, MAX_WRITES_IN_FLIGHT + 1);
        return p;
    }

    /**
     * Mutual TLS on every gRPC channel: with the agent's certificate when {@code tls.rpc} is on, else when the
     * settings carry a secret with a certificate bound to it (a fresh key pair per call: per process, as each
     * server's); none otherwise.
     */
    static Parameters parameters(RaftSettings settings) {
        if (settings.tls() != null) {
            return RaftTls.parameters(settings.tls());
        }
        return settings.secret() == null ? new Parameters() : RaftTls.generate(settings.secret()).parameters();
    }

    /**
     * Waits until this server can serve writes: it leads and has applied everything before its term, or it follows a
     * known leader and has applied everything committed.
     *
     * @return false if the timeout ran out first or the server stopped
     */
    boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (isRunning()) {
            if (isReady()) {
                return true;
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(POLL_MS);
        }
        return false;
    }

    private boolean isReady() {
        RaftServer.Division d = division;
        if (d == null) {
            return false;
        }
        DivisionInfo info = d.getInfo();
        if (info.isLeader()) {
            return info.isLeaderReady();
        }
        return info.getLeaderId() != null && info.getLastAppliedIndex() >= d.getRaftLog().getLastCommittedIndex();
    }

    @Override
    public CompletionStage<Applied> submit(byte[] command) {
        CompletableFuture<Applied> result = new CompletableFuture<>();
        pending.add(result);
        long started = System.nanoTime();
        result.whenComplete((applied, error) -> {
            pending.remove(result);
            if (error == null) {
                metrics.applied(System.nanoTime() - started);
            }
        });
        if (closed.get()) {   // close() may have swept pending before the add
            result.completeExceptionally(stoppedException());
            return result;
        }
        if (command.length > MAX_COMMAND_BYTES) {
            result.completeExceptionally(new IllegalArgumentException("Request body too large: a write of "
                    + command.length + " bytes exceeds the Raft log's limit of " + MAX_COMMAND_BYTES + " bytes"));
            return result;
        }
        batcher.submit(command.clone(), result);   // the caller may reuse its array
        return result;
    }

    /** The batcher's way out: one Ratis write of a single command or a batch, waiting for a leader as a submit does. */
    private void write(ByteString request, CompletableFuture<Applied> written) {
        attempt(Message.valueOf(request), System.nanoTime() + settings.leaderWait().toNanos(), written);
    }

    private static int maxBatchBytes(RaftSettings settings, Consumer<RaftProperties> tuning) {
        RaftProperties p = properties(settings);
        tuning.accept(p);
        int appendLimit = RaftServerConfigKeys.Log.Appender.bufferByteLimit(p).getSizeInt();
        return Math.max(1, Math.min(MAX_BATCH_BYTES, appendLimit / 2));
    }

    private void attempt(Message message, long deadline, CompletableFuture<Applied> result) {
        RaftServer s = server;
        if (!isRunning()) {
            result.completeExceptionally(stoppedException());
            return;
        }
        if (s == null) {
            retryOrGiveUp(message, deadline, result);   // not started yet: no leader so far
            return;
        }
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(selfId)
                .setGroupId(GROUP_ID)
                .setCallId(callIds.incrementAndGet())
                .setMessage(message)
                .setType(RaftClientRequest.writeRequestType())
                .build();
        CompletableFuture<RaftClientReply> reply;
        try {
            reply = s.submitClientRequestAsync(request);
        } catch (IOException e) {
            result.completeExceptionally(e);
            return;
        }
        reply.whenComplete((r, error) -> {
            RaftException failure = error == null ? r.getException() : asRaftException(error);
            if (error == null && r.isSuccess()) {
                result.complete(new Applied(r.getLogIndex(), r.getMessage().getContent().toByteArray()));
            } else if (failure instanceof org.apache.ratis.protocol.exceptions.NotLeaderException nle) {
                RaftPeer leader = nle.getSuggestedLeader();
                if (leader != null && !leader.getId().equals(selfId)) {
                    result.completeExceptionally(NotLeaderException.leaderIs(leader.getAddress()));
                } else {
                    retryOrGiveUp(message, deadline, result);   // an election is running
                }
            } else if (failure instanceof LeaderNotReadyException || failure instanceof ServerNotReadyException) {
                retryOrGiveUp(message, deadline, result);   // just elected, or still replaying
            } else if (failure instanceof StateMachineException refused
                    && refused.getCause() instanceof IllegalArgumentException invalid) {
                result.completeExceptionally(invalid);   // the gate refused it (CommandStateMachine.startTransaction)
            } else if (CommandStateMachine.BatchFailure.in(error == null ? failure : error) != null) {
                // the handler threw mid-batch: the batcher completes the commands applied before it
                result.completeExceptionally(CommandStateMachine.BatchFailure.in(error == null ? failure : error));
            } else if (failure instanceof AlreadyClosedException || closed.get() || stateMachine.failed()) {
                result.completeExceptionally(stoppedException());
            } else {
                Throwable cause = failure != null ? failure : error;
                result.completeExceptionally(new IllegalStateException("Raft append failed: " + cause, cause));
            }
        });
    }

    /**
     * A Ratis read-only request: Ratis gets the read index (from the leader's lease or a heartbeat round, or over
     * RPC from the leader on a follower), waits until this server has applied up to it, then queries the state
     * machine, which answers nothing ({@link CommandStateMachine#query}): the caller reads its own state afterwards.
     * While no leader answers (an election, a leader gone), it retries until the leader wait runs out, as writes do.
     */
    @Override
    public CompletionStage<Void> awaitConsistentRead() {
        CompletableFuture<Void> batch;
        boolean start;
        synchronized (reads) {
            if (reads.next == null) {
                reads.next = new CompletableFuture<>();
            }
            batch = reads.next;
            start = !reads.inFlight;
            if (start) {
                reads.inFlight = true;
                reads.next = null;
            }
        }
        if (start) {
            readBatch(batch);
        }
        return batch.copy();
    }

    /**
     * Reads that arrive together share one Ratis read request (one read index): 10,000 blocking queries arriving at
     * once cost a few requests, not 10,000 (each of which took a thread of Ratis' client pool for a while). A read
     * that arrives while a request is out waits for the next one, which starts only after it: its read index is then
     * taken after the read arrived, as a consistent read needs.
     */
    private void readBatch(CompletableFuture<Void> batch) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        read(System.nanoTime() + settings.leaderWait().toNanos(), result);
        result.whenComplete((ok, error) -> {
            CompletableFuture<Void> next;
            synchronized (reads) {
                next = reads.next;
                reads.next = null;
                reads.inFlight = next != null;
            }
            if (next != null) {
                // Not on this thread: Ratis may complete a read while it holds its read queue's lock, which
                // submitting the next read would wait for.
                try {
                    retries.execute(() -> readBatch(next));
                } catch (RuntimeException closed) {
                    next.completeExceptionally(stoppedException());
                }
            }
            if (error == null) {
                batch.complete(null);
            } else {
                batch.completeExceptionally(error);
            }
        });
    }

    /** The consistent reads waiting for a read index. */
    private static final class ReadBatches {
        CompletableFuture<Void> next;   // the reads that wait for the next request; guarded by this
        boolean inFlight;               // a request is out; guarded by this
    }

    private final ReadBatches reads = new ReadBatches();

    private void read(long deadline, CompletableFuture<Void> result) {
        RaftServer s = server;
        if (!isRunning()) {
            result.completeExceptionally(stoppedException());
            return;
        }
        if (s == null) {
            retryReadOrGiveUp(deadline, result);
            return;
        }
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(selfId)
                .setGroupId(GROUP_ID)
                .setCallId(callIds.incrementAndGet())
                .setMessage(Message.EMPTY)
                .setType(RaftClientRequest.readRequestType())
                .build();
        CompletableFuture<RaftClientReply> reply;
        try {
            reply = s.submitClientRequestAsync(request);
        } catch (IOException e) {
            retryReadOrGiveUp(deadline, result);
            return;
        }
        reply.whenComplete((r, error) -> {
            if (error == null && r.isSuccess()) {
                result.complete(null);
            } else {
                // No leader known, a leader not ready or gone, a read index not reached in Ratis' read timeout: all
                // pass with the election, so they wait for it (bounded) as a write does.
                LOG.debug("Consistent read on {} not served yet: {}", selfId, error != null ? error : r.getException());
                retryReadOrGiveUp(deadline, result);
            }
        });
    }

    private void retryReadOrGiveUp(long deadline, CompletableFuture<Void> result) {
        if (!isRunning()) {
            result.completeExceptionally(stoppedException());
        } else if (System.nanoTime() - deadline >= 0) {
            result.completeExceptionally(NotLeaderException.noLeader());
        } else {
            try {
                retries.schedule(() -> read(deadline, result), RETRY_DELAY_MS, TimeUnit.MILLISECONDS);
            } catch (RuntimeException rejected) {   // closed meanwhile
                result.completeExceptionally(stoppedException());
            }
        }
    }

    /**
     * Ratis knows how long ago the leader last called only while it follows one; once it has lost the leader (an
     * election, no quorum) it is this server's last sighting, which is what a stale read's caller wants to know.
     */
    @Override
    public long lastLeaderContactMillis() {
        RaftServer.Division d = division;
        if (!isRunning() || d == null || d.getInfo().isLeader()) {
            return 0;
        }
        long now = System.nanoTime();
        var role = d.getInfo().getRoleInfoProto();
        if (d.getInfo().getLeaderId() != null && role.hasFollowerInfo()) {
            long elapsed = role.getFollowerInfo().getLeaderInfo().getLastRpcElapsedTimeMs();
            leaderSeenNanos = now - TimeUnit.MILLISECONDS.toNanos(elapsed);
            return elapsed;
        }
        long seen = leaderSeenNanos;
        return seen == 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(now - seen);
    }

    /**
     * Replaces the group's voting members (Raft joint consensus): the way a server is removed from, or added to, a
     * running group. Only the leader can do it; this server does not forward. One attempt, no retry: the stage fails
     * with {@link NotLeaderException} (with the leader's address when known) on a follower or during an election, and
     * with {@link IllegalStateException} when Ratis refuses the change. It completes once the new configuration is
     * committed; a removed server is not told and should be stopped by its operator (as Nomad's remove-peer).
     */
    CompletionStage<Void> setPeers(List<Peer> peers) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        RaftServer s = server;
        if (s == null || !isRunning()) {
            result.completeExceptionally(s == null ? NotLeaderException.noLeader() : stoppedException());
            return result;
        }
        List<RaftPeer> members = peers.stream()
                .map(p -> RaftPeer.newBuilder().setId(p.id()).setAddress(p.address()).build())
                .toList();
        SetConfigurationRequest request = new SetConfigurationRequest(clientId, selfId, GROUP_ID,
                callIds.incrementAndGet(), members);
        CompletableFuture<RaftClientReply> reply;
        try {
            reply = s.setConfigurationAsync(request);
        } catch (IOException e) {
            result.completeExceptionally(e);
            return result;
        }
        reply.whenComplete((r, error) -> {
            RaftException failure = error == null ? r.getException() : asRaftException(error);
            if (error == null && r.isSuccess()) {
                LOG.info("Raft group configuration is now {}", members);
                result.complete(null);
            } else if (failure instanceof org.apache.ratis.protocol.exceptions.NotLeaderException nle
                    && nle.getSuggestedLeader() != null && !nle.getSuggestedLeader().getId().equals(selfId)) {
                result.completeExceptionally(NotLeaderException.leaderIs(nle.getSuggestedLeader().getAddress()));
            } else if (failure instanceof org.apache.ratis.protocol.exceptions.NotLeaderException
                    || failure instanceof LeaderNotReadyException) {
                result.completeExceptionally(NotLeaderException.noLeader());
            } else {
                Throwable cause = failure != null ? failure : error;
                result.completeExceptionally(new IllegalStateException("Raft configuration change failed: " + cause,
                        cause));
            }
        });
        return result;
    }

    /** Whether {@code error} is Ratis refusing a configuration change because another one has not finished. */
    static boolean changeInProgress(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ReconfigurationInProgressException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Steps down as leader (a transfer to nobody): the servers elect another, which starts without this one's pending
     * configuration change. The way out of a change Ratis never finishes. Completes when this server has stepped down;
     * fails with {@link NotLeaderException} when it does not lead.
     */
    CompletionStage<Void> stepDown() {
        CompletableFuture<Void> result = new CompletableFuture<>();
        RaftServer s = server;
        if (s == null || !isRunning()) {
            result.completeExceptionally(s == null ? NotLeaderException.noLeader() : stoppedException());
            return result;
        }
        TransferLeadershipRequest request = new TransferLeadershipRequest(clientId, selfId, GROUP_ID,
                callIds.incrementAndGet(), null, STEP_DOWN_TIMEOUT_MS);
        try {
            s.transferLeadershipAsync(request).whenComplete((r, error) -> {
                if (error == null && r.isSuccess()) {
                    result.complete(null);
                } else {
                    Throwable cause = error != null ? error : r.getException();
                    result.completeExceptionally(
                            cause instanceof org.apache.ratis.protocol.exceptions.NotLeaderException
                                    ? NotLeaderException.noLeader()
                                    : new IllegalStateException("Raft step-down failed: " + cause, cause));
                }
            });
        } catch (IOException e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    private void retryOrGiveUp(Message message, long deadline, CompletableFuture<Applied> result) {
        if (System.nanoTime() - deadline >= 0) {
            result.completeExceptionally(NotLeaderException.noLeader());
            return;
        }
        try {
            retries.schedule(() -> attempt(message, deadline, result), RETRY_DELAY_MS, TimeUnit.MILLISECONDS);
        } catch (RuntimeException rejected) {   // closed meanwhile
            result.completeExceptionally(stoppedException());
        }
    }

    private static RaftException asRaftException(Throwable error) {
        Throwable t = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return t instanceof RaftException re ? re : null;
    }

    private IllegalStateException stoppedException() {
        return stateMachine.failed()
                ? new IllegalStateException("The Raft server stopped after a command failed to apply")
                : new IllegalStateException("The Raft server is stopped");
    }

    RaftMetrics metrics() {
        return metrics;
    }

    /** What {@link RaftMetrics} samples: this server's role and log indexes now; null before it runs. */
    RaftMetrics.State metricsState() {
        RaftServer.Division d = division;
        if (!isRunning() || d == null) {
            return null;
        }
        DivisionInfo info = d.getInfo();
        List<Long> contacts = info.isLeader()
                ? info.getRoleInfoProto().getLeaderInfo().getFollowerInfoList().stream()
                        .map(f -> f.getLastRpcElapsedTimeMs()).toList()
                : List.of();
        return new RaftMetrics.State(info.isLeader(), info.isFollower(), info.isCandidate(), lastAppliedIndex(),
                d.getRaftLog().getNextIndex() - 1, contacts);
    }

    @Override
    public boolean isLeader() {
        RaftServer.Division d = division;
        return isRunning() && d != null && d.getInfo().isLeader() && d.getInfo().isLeaderReady();
    }

    /** The current term, while this server leads and is ready; -1 otherwise. */
    long leaderTerm() {
        RaftServer.Division d = division;
        if (!isRunning() || d == null || !d.getInfo().isLeader() || !d.getInfo().isLeaderReady()) {
            return -1;
        }
        return d.getInfo().getCurrentTerm();
    }

    @Override
    public Optional<String> leaderAddress() {
        RaftServer.Division d = division;
        if (!isRunning() || d == null) {
            return Optional.empty();
        }
        RaftPeerId leader = d.getInfo().getLeaderId();
        return Optional.ofNullable(leader).map(id -> d.getRaftConf().getPeer(id)).map(RaftPeer::getAddress);
    }

    @Override
    public long lastAppliedIndex() {
        var last = stateMachine.getLastAppliedTermIndex();
        return last == null ? 0 : Math.max(0, last.getIndex());
    }

    @Override
    public List<String> peers() {
        RaftServer.Division d = division;
        if (d == null) {
            return settings.peers().stream().map(Peer::address).toList();
        }
        return d.getRaftConf().getCurrentPeers().stream().map(RaftPeer::getAddress).toList();
    }

    /** The group's voting members with their ids (the configured ones until the server runs). */
    List<Peer> configuration() {
        RaftServer.Division d = division;
        if (d == null) {
            return settings.peers();
        }
        return d.getRaftConf().getCurrentPeers().stream()
                .map(p -> new Peer(p.getId().toString(), p.getAddress())).toList();
    }

    /**
     * On the leader: each member's last contact and match index (Ratis lists its followers' RPC info and match indexes
     * in the same order, that of its log appenders); the leader itself with 0 ms and its own last index.
     */
    List<io.caravan.consensus.RaftConfiguration.Progress> progress() {
        RaftServer.Division d = division;
        if (!isRunning() || d == null || !d.getInfo().isLeader()) {
            return List.of();
        }
        List<io.caravan.consensus.RaftConfiguration.Progress> out = new java.util.ArrayList<>();
        out.add(new io.caravan.consensus.RaftConfiguration.Progress(d.getId().toString(), 0,
                d.getRaftLog().getLastEntryTermIndex() == null ? 0 : d.getRaftLog().getLastEntryTermIndex().getIndex()));
        var role = d.getInfo().getRoleInfoProto();
        if (!role.hasLeaderInfo()) {
            return out;
        }
        var followers = role.getLeaderInfo().getFollowerInfoList();
        long[] match = d.getInfo().getFollowerMatchIndices();
        for (int i = 0; i < followers.size(); i++) {
            var f = followers.get(i);
            out.add(new io.caravan.consensus.RaftConfiguration.Progress(f.getId().getId().toStringUtf8(),
                    f.getLastRpcElapsedTimeMs(), i < match.length ? match[i] : 0));
        }
        return out;
    }

    /** The current term (0 before the server runs). */
    long term() {
        RaftServer.Division d = division;
        return d == null ? 0 : d.getInfo().getCurrentTerm();
    }

    /** The leader's peer id, when one is known. */
    Optional<String> leaderId() {
        RaftServer.Division d = division;
        if (!isRunning() || d == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(d.getInfo().getLeaderId()).map(RaftPeerId::toString);
    }

    /** The log index the latest snapshot covers, or -1 before the first. */
    long latestSnapshotIndex() {
        var snapshot = stateMachine.getLatestSnapshot();
        return snapshot == null ? -1 : snapshot.getIndex();
    }

    /** The index of the oldest entry still in the log (entries before it were purged behind a snapshot). */
    long firstLogIndex() {
        RaftServer.Division d = division;
        return d == null ? -1 : d.getRaftLog().getStartIndex();
    }

    /**
     * False once closed, once a failed apply stopped it, or once Ratis closed the server by itself (it does when its
     * apply thread fails, as it did on a snapshot install before {@link CommandStateMachine#pause}), which would
     * otherwise leave a server that looks running but never answers.
     */
    boolean isRunning() {
        RaftServer.Division d = division;
        return !closed.get() && !stateMachine.failed() && (d == null || d.getInfo().isAlive());
    }

    /** Why {@link #isRunning()} is false, in words for the log. */
    String stopReason() {
        if (stateMachine.failed()) {
            return "applying a command failed (" + stateMachine.applyFailure() + ")";
        }
        if (closed.get()) {
            return "it was closed";
        }
        RaftServer.Division d = division;
        return "Ratis closed its division (life cycle " + (d == null ? "?" : d.getInfo().getLifeCycleState())
                + "); the Ratis log lines before this one say why";
    }

    /** Told once when the server stops on its own (a failed apply), so the component can withdraw the service. */
    void onStop(Runnable listener) {
        stopListeners.add(listener);
    }

    /** Called on the apply thread; closing from there would wait on itself, so close on a thread of its own. */
    private void halt(Throwable cause) {
        Thread t = new Thread(() -> {
            close();
            stopListeners.forEach(Runnable::run);
        }, "caravan-raft-halt");
        t.setDaemon(true);
        t.start();
    }

    /** Stops the server; returns once it has released its port and storage lock, even if another thread closes it. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            awaitStopped();
            return;
        }
        try {
            stopServer();
        } finally {
            stopped.countDown();
        }
    }

    private void awaitStopped() {
        try {
            if (!stopped.await(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn("Raft server {} still stopping after {} s", selfId, CLOSE_WAIT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void stopServer() {
        retries.shutdownNow();
        RaftServer s = server;
        if (s != null) {
            try {
                s.close();
            } catch (IOException | RuntimeException e) {
                LOG.warn("Closing Raft server {} failed", selfId, e);
            }
        }
        pending.forEach(f -> f.completeExceptionally(stoppedException()));
        LOG.info("Raft server {} stopped", selfId);
    }
}
