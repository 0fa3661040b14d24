package io.caravan.server.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.json.NomadJson;
import io.caravan.api.timer.Deadlines;
import io.caravan.api.timer.SharedTimer;
import io.caravan.consensus.Applied;
import io.caravan.consensus.NotLeaderException;
import io.caravan.consensus.Replicator;
import io.caravan.http.QueryMeta;
import io.caravan.http.WriteBarrier;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.EndpointProvider;
import io.caravan.rpc.Rpc;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The one way endpoints and leader duties write: a command through the Raft log, answered once applied, with a
 * rejection turned into its {@link CaravanException}. Waits up to {@link #LEADER_HOLD} for a leader (a server still
 * electing itself), as Nomad's RPCHoldTimeout. A follower forwards the encoded command to the leader over RPC
 * ({@value #APPLY}, an endpoint the leader serves), so writes can arrive at any server. Reads ask it what to wait
 * for first ({@link #beforeRead}), since it holds this server's Raft log.
 */
@Component(service = {RaftWrites.class, EndpointProvider.class, WriteBarrier.class},
        configurationPid = "io.caravan.server")
public final class RaftWrites implements EndpointProvider, WriteBarrier {
    static final Duration LEADER_HOLD = Duration.ofSeconds(5);
    static final String APPLY = "Raft.Apply";
    private static final Duration RETRY_DELAY = Duration.ofMillis(100);
    private static final Duration COMPLETIONS_IDLE = Duration.ofSeconds(5);

    /** A command as the Raft log takes it, and what applying it gave. */
    record ApplyRequest(byte[] entry) {}

    private volatile Rpc rpc;

    /** The server block's job limits, for jobs that followers forward. */
    private volatile JobLimits limits = JobLimits.DEFAULT;

    @Activate
    @Modified
    void configure(ServerSchedulingConfig config) {
        limits = JobLimits.of(config);
    }

    /**
     * Two threads under load (a node simulator's thousands of calls complete here), none a few seconds after the
     * last write: an idle server keeps no thread for this.
     */
    private final ExecutorService completions = completionPool();

    private static ExecutorService completionPool() {
        java.util.concurrent.ThreadPoolExecutor pool = new java.util.concurrent.ThreadPoolExecutor(2, 2,
                COMPLETIONS_IDLE.toMillis(), TimeUnit.MILLISECONDS, new java.util.concurrent.LinkedBlockingQueue<>(),
                r -> {
                    Thread t = new Thread(r, "caravan-write-done");
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** Completes with the Raft log once this server has one with a leader; replaced while there is none. */
    private volatile CompletableFuture<Replicator> replicator = new CompletableFuture<>();

    /** Times the waits for a leader: the agent's shared timer; without one (tests) the JDK's own timer thread. */
    private volatile ScheduledExecutorService timer;

    @Reference
    void bindTimer(SharedTimer shared) {
        timer = shared.timer("caravan-write-deadlines");
    }

    private <T> CompletableFuture<T> within(CompletableFuture<T> future, long nanos) {
        ScheduledExecutorService t = timer;
        return t == null ? future.orTimeout(nanos, TimeUnit.NANOSECONDS)
                : Deadlines.orTimeout(future, nanos, TimeUnit.NANOSECONDS, t);
    }

    private CompletableFuture<Void> pause(Duration delay) {
        ScheduledExecutorService t = timer;
        return t == null ? CompletableFuture.runAsync(() -> { },
                CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS))
                : Deadlines.after(delay.toMillis(), TimeUnit.MILLISECONDS, t);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    synchronized void bindReplicator(Replicator log) {
        if (!replicator.complete(log)) {
            replicator = CompletableFuture.completedFuture(log);
        }
    }

    synchronized void unbindReplicator(Replicator log) {
        if (replicator.getNow(null) == log) {
            replicator = new CompletableFuture<>();
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void bindRpc(Rpc transport) {
        rpc = transport;
    }

    void unbindRpc(Rpc transport) {
        if (rpc == transport) {
            rpc = null;
        }
    }

    /**
     * Completes on a thread of this component, never on Raft's apply thread: whatever the caller chains (an HTTP
     * answer, a client's next request) must not hold up the log. The command is encoded once, with a new request ID,
     * and every retry (here after a leader change, in the forward to the leader) sends those bytes: a write whose reply
     * was lost after the log took it is answered, not applied, the second time ({@link AppliedRequests}).
     */
    CompletionStage<Command.Result> submit(Command command) {
        return submitEncoded(CommandCodec.encode(command));
    }

    /** {@link #submit} of a command the caller has already encoded ({@link CommandCodec#encode}). */
    CompletionStage<Command.Result> submitEncoded(byte[] entry) {
        if (entry.length > Replicator.MAX_COMMAND_BYTES) {
            return CompletableFuture.failedFuture(tooLarge(entry.length));
        }
        return append(entry, System.nanoTime() + LEADER_HOLD.toNanos()).thenApplyAsync(RaftWrites::result, completions);
    }

    /**
     * Appends here or through the leader; when leadership moves mid-write (no leader, or the leader's connection
     * closed), tries again until {@code deadline}, as Nomad holds RPCs while it elects.
     */
    private CompletableFuture<Applied> append(byte[] entry, long deadline) {
        long left = Math.max(1, deadline - System.nanoTime());
        return within(replicator.copy(), left)
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(
                        new CaravanException(ErrorCode.NO_LEADER, "No cluster leader")))
                .thenCompose(log -> log.submit(entry).exceptionallyCompose(e -> forwardIfFollower(e, entry)))
                .exceptionallyCompose(e -> {
                    Throwable cause = unwrap(e);
                    boolean leaderMoved = cause instanceof CaravanException c && c.code() == ErrorCode.NO_LEADER
                            || cause instanceof NotLeaderException;
                    if (!leaderMoved) {
                        return CompletableFuture.failedFuture(forCaller(cause));   // e.g. the leader's gate refused it
                    }
                    if (System.nanoTime() > deadline) {
                        // Nomad's answer once its RPC hold timeout runs out; never a Raft address.
                        return CompletableFuture.failedFuture(new CaravanException(ErrorCode.NO_LEADER,
                                "No cluster leader"));
                    }
                    return pause(RETRY_DELAY).thenCompose(x -> append(entry, deadline));
                });
    }

    /**
     * A follower sends the write to the leader; with no RPC yet (a server still starting), the caller retries until its
     * deadline like any other leader change.
     */
    private CompletableFuture<Applied> forwardIfFollower(Throwable error, byte[] entry) {
        Throwable cause = unwrap(error);
        Rpc r = rpc;
        if (cause instanceof NotLeaderException nle && nle.leaderAddress().isPresent() && r != null) {
            return r.dispatch(APPLY, new ApplyRequest(entry), Applied.class).toCompletableFuture();
        }
        return CompletableFuture.failedFuture(cause);
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /**
     * What a read waits for before it looks at this server's state, as Nomad's default consistency: nothing with
     * {@code allowStale} ({@code ?stale}: any server answers from its own state); otherwise until this server has
     * applied all the leader had committed when the read arrived ({@link Replicator#awaitConsistentRead}), so that a
     * follower never answers older than a write already acknowledged. Holds up to {@link #LEADER_HOLD} for a Raft log,
     * as writes do; fails with Nomad's "No cluster leader" (500) when no leader answers. Completes on a thread of this
     * component, never on one of Raft's.
     */
    CompletionStage<Void> beforeRead(boolean allowStale) {
        if (allowStale) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> ready = within(replicator.copy(), LEADER_HOLD.toNanos())
                .thenCompose(Replicator::awaitConsistentRead)
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(forCaller(unwrap(e))));
        return ready.isDone() ? ready : ready.thenApplyAsync(x -> x, completions);
    }

    /**
     * What a write route waits for before its checks read this server's state: nothing on the leader (a write it
     * acknowledged is applied here), a consistent read's barrier ({@link #beforeRead}) on a follower.
     */
    @Override
    public CompletionStage<Void> beforeWrite() {
        Replicator log = replicator.getNow(null);
        return log != null && log.isLeader() ? CompletableFuture.completedFuture(null) : beforeRead(false);
    }

    /**
     * A read's answer headers: its index, and Nomad's {@code X-Nomad-KnownLeader} and {@code X-Nomad-LastContact}
     * (milliseconds since this server last heard from the leader; 0 on the leader) as they are when it answers.
     */
    QueryMeta readMeta(long index, String nextToken) {
        Replicator log = replicator.getNow(null);
        boolean knownLeader = log != null && log.leaderAddress().isPresent();
        return new QueryMeta(index, knownLeader, log == null ? 0 : log.lastLeaderContactMillis(), nextToken);
    }

    /**
     * What the leader serves for followers' writes. The bytes must decode to one of our commands and pass its checks;
     * what is appended is the leader's own encoding of that command, never the caller's bytes.
     */
    @Override
    public List<Endpoint<?, ?>> endpoints() {
        return List.of(new Endpoint<>(APPLY, ApplyRequest.class, Applied.class, Endpoint.Routing.LEADER,
                Endpoint.Callers.SERVERS, q -> {
                    CommandCodec.Entry admitted = admitted(q.entry());
                    // The follower's request ID is kept: a forward retried after a lost reply must apply once.
                    byte[] entry = CommandCodec.encode(admitted.requestId(), admitted.command());
                    return within(replicator.copy(), LEADER_HOLD.toNanos())
                            .thenCompose(log -> log.submit(entry))
                            .exceptionallyCompose(e -> CompletableFuture.failedFuture(forCaller(unwrap(e))));
                }));
    }

    /**
     * A failed append as the caller should hear it: a refusal by the leader's gate as 400, and "not the leader" (a
     * forward reached a server that does not lead, or has no Raft log yet) as NO_LEADER, which is retried; never a Raft
     * address.
     */
    private static Throwable forCaller(Throwable error) {
        if (error instanceof IllegalArgumentException refused) {
            return new CaravanException(ErrorCode.BAD_REQUEST, refused.getMessage());
        }
        if (error instanceof NotLeaderException || error instanceof TimeoutException) {
            return new CaravanException(ErrorCode.NO_LEADER, "No cluster leader");
        }
        return error;
    }

    private static CaravanException tooLarge(int bytes) {
        return new CaravanException(ErrorCode.PAYLOAD_TOO_LARGE, "Request too large: the write is " + bytes
                + " bytes; the Raft log takes at most " + Replicator.MAX_COMMAND_BYTES);
    }

    /** A forwarded entry as a command and its request ID, or a 400 saying why it is none. */
    private CommandCodec.Entry admitted(byte[] entry) {
        if (entry == null) {
            throw new CaravanException(ErrorCode.BAD_REQUEST, "invalid command: missing");
        }
        if (entry.length > Replicator.MAX_COMMAND_BYTES) {
            throw tooLarge(entry.length);
        }
        CommandCodec.Entry decoded;
        try {
            decoded = CommandCodec.decodeEntry(entry);
            decoded.command().validate();
        } catch (IllegalArgumentException invalid) {
            throw new CaravanException(ErrorCode.BAD_REQUEST, "invalid command: " + invalid.getMessage());
        }
        if (decoded.command() instanceof Command.JobRegister register) {
            // The job limits Job.Register checks, again: the caller may not be our endpoint code.
            Jobs.check(NomadJson.mapper().valueToTree(register.job()), limits);
        }
        return decoded;
    }

    @Deactivate
    void deactivate() {
        completions.shutdown();
        ScheduledExecutorService t = timer;
        if (t != null) {
            t.shutdownNow();
        }
    }

    /** For leader duties and scheduler workers, which run on threads of their own. */
    Command.Result submitAndWait(Command command) {
        return await(submit(command));
    }

    Command.Result submitEncodedAndWait(byte[] entry) {
        return await(submitEncoded(entry));
    }

    private static Command.Result await(CompletionStage<Command.Result> submitted) {
        try {
            return submitted.toCompletableFuture().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw e;
        }
    }

    private static Command.Result result(Applied applied) {
        Command.Result result = CommandCodec.decodeResult(applied.result());
        if (result.errorCode() != 0) {
            ErrorCode code = switch (result.errorCode()) {
                case 403 -> ErrorCode.PERMISSION_DENIED;
                case 404 -> ErrorCode.NOT_FOUND;
                case 409 -> ErrorCode.CONFLICT;
                default -> ErrorCode.BAD_REQUEST;
            };
            throw new CaravanException(code, result.error());
        }
        return result;
    }
}
