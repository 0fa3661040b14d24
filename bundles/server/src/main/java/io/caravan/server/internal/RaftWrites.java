package io.caravan.server.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.consensus.Applied;
import io.caravan.consensus.NotLeaderException;
import io.caravan.consensus.Replicator;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.EndpointProvider;
import io.caravan.rpc.Rpc;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The one way endpoints and leader duties write: a command through the Raft log, answered once applied, with a
 * rejection turned into its {@link CaravanException}. Waits up to {@link #LEADER_HOLD} for a leader (a server still
 * electing itself), as Nomad's RPCHoldTimeout. A follower forwards the encoded command to the leader over RPC
 * ({@value #APPLY}, an endpoint the leader serves), so writes can arrive at any server.
 */
@Component(service = {RaftWrites.class, EndpointProvider.class})
public final class RaftWrites implements EndpointProvider {
    static final Duration LEADER_HOLD = Duration.ofSeconds(5);
    static final String APPLY = "Raft.Apply";
    private static final Duration RETRY_DELAY = Duration.ofMillis(100);

    /** A command as the Raft log takes it, and what applying it gave. */
    record ApplyRequest(byte[] entry) {}

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile Rpc rpc;

    private final java.util.concurrent.ExecutorService completions = java.util.concurrent.Executors.newFixedThreadPool(2,
            r -> {
                Thread t = new Thread(r, "caravan-write-done");
                t.setDaemon(true);
                return t;
            });

    /** Completes with the Raft log once this server has one with a leader; replaced while there is none. */
    private volatile CompletableFuture<Replicator> replicator = new CompletableFuture<>();

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

    /**
     * Completes on a thread of this component, never on Raft's apply thread: whatever the caller chains (an HTTP
     * answer, a client's next request) must not hold up the log.
     */
    CompletionStage<Command.Result> submit(Command command) {
        byte[] entry = CommandCodec.encode(command);
        return append(entry, System.nanoTime() + LEADER_HOLD.toNanos()).thenApplyAsync(RaftWrites::result, completions);
    }

    /**
     * Appends here or through the leader; when leadership moves mid-write (no leader, or the leader's connection
     * closed), tries again until {@code deadline}, as Nomad holds RPCs while it elects.
     */
    private CompletableFuture<Applied> append(byte[] entry, long deadline) {
        long left = Math.max(1, deadline - System.nanoTime());
        return replicator.copy().orTimeout(left, TimeUnit.NANOSECONDS)
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(
                        new CaravanException(ErrorCode.NO_LEADER, "No cluster leader")))
                .thenCompose(log -> log.submit(entry).exceptionallyCompose(e -> forwardIfFollower(e, entry)))
                .exceptionallyCompose(e -> {
                    Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                            ? e.getCause() : e;
                    boolean leaderMoved = cause instanceof CaravanException c && c.code() == ErrorCode.NO_LEADER
                            || cause instanceof NotLeaderException;
                    if (!leaderMoved || System.nanoTime() > deadline) {
                        return CompletableFuture.failedFuture(cause);
                    }
                    return CompletableFuture.supplyAsync(() -> null, CompletableFuture.delayedExecutor(
                            RETRY_DELAY.toMillis(), TimeUnit.MILLISECONDS)).thenCompose(x -> append(entry, deadline));
                });
    }

    private CompletableFuture<Applied> forwardIfFollower(Throwable error, byte[] entry) {
        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        Rpc r = rpc;
        if (cause instanceof NotLeaderException nle && nle.leaderAddress().isPresent() && r != null) {
            return r.dispatch(APPLY, new ApplyRequest(entry), Applied.class).toCompletableFuture();
        }
        return CompletableFuture.failedFuture(cause);
    }

    /** What the leader serves for followers' writes: the entry through its own log. */
    @Override
    public java.util.List<Endpoint<?, ?>> endpoints() {
        return java.util.List.of(new Endpoint<>(APPLY, ApplyRequest.class, Applied.class, Endpoint.Routing.LEADER,
                Endpoint.Callers.SERVERS, q -> replicator.copy().orTimeout(LEADER_HOLD.toMillis(), TimeUnit.MILLISECONDS)
                        .thenCompose(log -> log.submit(q.entry()))));
    }

    @Deactivate
    void deactivate() {
        completions.shutdown();
    }

    /** For leader duties and scheduler workers, which run on threads of their own. */
    Command.Result submitAndWait(Command command) {
        try {
            return submit(command).toCompletableFuture().join();
        } catch (java.util.concurrent.CompletionException e) {
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
                case 404 -> ErrorCode.NOT_FOUND;
                case 409 -> ErrorCode.CONFLICT;
                default -> ErrorCode.BAD_REQUEST;
            };
            throw new CaravanException(code, result.error());
        }
        return result;
    }
}
