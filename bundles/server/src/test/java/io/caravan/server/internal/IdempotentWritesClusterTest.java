package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.consensus.Applied;
import io.caravan.consensus.internal.TestRaftGroup;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.Rpc;
import io.caravan.state.StateSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three servers in one JVM, each with its state and its {@link RaftWrites}, over real Raft on loopback. A follower
 * forwards a write to the leader ({@code Raft.Apply}); the leader applies it, and its reply is lost on the way back (as
 * when the connection closes). The follower retries the same write: it must apply once, and the caller must hear
 * success. The write only creates the job if it is new, so a second application would be refused (409), not hidden.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class IdempotentWritesClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final List<ServerState> states = List.of(new ServerState(), new ServerState(), new ServerState());
    private final List<RaftWrites> writes = List.of(new RaftWrites(), new RaftWrites(), new RaftWrites());

    @AfterEach
    void stop() {
        writes.forEach(RaftWrites::deactivate);
        states.forEach(ServerState::deactivate);
    }

    /** Each server's writes go through its own Raft server; forwards through the (lossy) test transport. */
    private LossyForwarding wire(TestRaftGroup group) {
        LossyForwarding forwarding = new LossyForwarding(group);
        for (int i = 0; i < writes.size(); i++) {
            writes.get(i).bindReplicator(group.server(i));
            writes.get(i).bindRpc(forwarding);
        }
        return forwarding;
    }

    @Test
    void aForwardedWriteWhoseReplyIsLostAppliesOnceAndTheCallerSucceeds() throws Exception {
        try (TestRaftGroup group = TestRaftGroup.start(dir, states)) {
            assertTrue(group.awaitReady(WAIT), "a leader within " + WAIT);
            LossyForwarding forwarding = wire(group);
            int follower = IntStream.range(0, states.size()).filter(i -> !group.server(i).isLeader()).findFirst()
                    .orElseThrow();

            // Created only if the job is new: applied a second time, this write would be refused with 409.
            Job job = FsmTest.job("web", 50);
            Command.JobRegister create = new Command.JobRegister(job,
                    Evaluation.forJob(UUID.randomUUID().toString(), job, Evaluation.TRIGGER_JOB_REGISTER, 1), true, 0);
            forwarding.dropNextReply.set(true);
            Command.Result result = writes.get(follower).submit(create).toCompletableFuture()
                    .get(WAIT.toSeconds(), TimeUnit.SECONDS);

            assertEquals(2, forwarding.requests.size(), "the write was forwarded, its reply lost, and forwarded again");
            UUID requestId = forwarding.requests.get(0);
            assertEquals(requestId, forwarding.requests.get(1), "the retry is the same request");
            assertEquals(0, result.errorCode());
            long last = IntStream.range(0, states.size()).mapToLong(i -> group.server(i).lastAppliedIndex()).max()
                    .orElseThrow();
            assertTrue(last > result.index(), "the retry reached the log after the write");
            for (int i = 0; i < states.size(); i++) {
                int index = i;
                ServerState state = states.get(i);
                await(() -> state.store().latestIndex() >= result.index()
                        && state.store().snapshot().count(AppliedRequests.TABLE) > 0, "server " + i + " applied");
                await(() -> group.server(index).lastAppliedIndex() >= last, "server " + i + " caught up");
                StateSnapshot s = state.store().snapshot();
                Job stored = s.get(NomadTables.JOBS, NomadTables.key("default", "web")).orElseThrow();
                assertEquals(0, stored.version(), "server " + i);
                assertEquals(result.index(), stored.modifyIndex(), "server " + i + ": the retry wrote nothing");
                assertEquals(1, s.count(NomadTables.JOB_VERSIONS), "server " + i + ": exactly one version");
                assertEquals(1, s.count(NomadTables.EVALS), "server " + i);
                // Any server that leads next answers a retry of this write the same way.
                assertEquals(Optional.of(result), AppliedRequests.result(s, requestId), "server " + i);
            }
        }
    }

    /**
     * The reply is lost because the leader went away right after applying the write: the retry reaches a new leader,
     * which holds the write's first result in its state, so it applies nothing (Ratis' own retry cache could not tell:
     * it knows one leader's calls only).
     */
    @Test
    void aWriteRetriedToANewLeaderAppliesOnce() throws Exception {
        try (TestRaftGroup group = TestRaftGroup.start(dir, states)) {
            assertTrue(group.awaitReady(WAIT), "a leader within " + WAIT);
            LossyForwarding forwarding = wire(group);
            int leader = IntStream.range(0, states.size()).filter(i -> group.server(i).isLeader()).findFirst()
                    .orElseThrow();
            int follower = (leader + 1) % states.size();
            forwarding.onDrop = () -> group.stop(leader);
            forwarding.dropNextReply.set(true);

            Job job = FsmTest.job("web", 50);
            Command.JobRegister create = new Command.JobRegister(job,
                    Evaluation.forJob(UUID.randomUUID().toString(), job, Evaluation.TRIGGER_JOB_REGISTER, 1), true, 0);
            CompletableFuture<Command.Result> submitted = writes.get(follower).submit(create).toCompletableFuture();
            Command.Result result;
            try {
                result = submitted.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                // Only if the survivors took longer to elect than the hold of a write (RaftWrites.LEADER_HOLD): the
                // machine was too slow for this test to say anything; a refused retry (409) is a failure.
                assumeTrue(!(e.getCause() instanceof CaravanException c && c.code() == ErrorCode.NO_LEADER),
                        "no new leader within the write's hold: " + e.getCause());
                throw e;
            }
            assertEquals(0, result.errorCode());
            assertTrue(forwarding.requests.size() >= 1, "the write was forwarded to the old leader");
            UUID requestId = forwarding.requests.get(0);
            assertTrue(forwarding.requests.stream().allMatch(requestId::equals), "every retry is the same request");
            for (int i = 0; i < states.size(); i++) {
                if (i == leader) {
                    continue;
                }
                int index = i;
                await(() -> group.server(index).lastAppliedIndex() > result.index(),
                        "server " + i + " applied the retry");
                StateSnapshot s = states.get(i).store().snapshot();
                Job stored = s.get(NomadTables.JOBS, NomadTables.key("default", "web")).orElseThrow();
                assertEquals(result.index(), stored.modifyIndex(), "server " + i + ": the retry wrote nothing");
                assertEquals(1, s.count(NomadTables.JOB_VERSIONS), "server " + i + ": exactly one version");
                assertEquals(Optional.of(result), AppliedRequests.result(s, requestId), "server " + i);
            }
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + WAIT + ": " + what);
            }
            Thread.sleep(10);
        }
    }

    /**
     * The RPC between the servers, reduced to what {@link RaftWrites} uses: {@code Raft.Apply} served by the current
     * leader's endpoint. With {@link #dropNextReply}, the next call is served and applied, and then its reply is lost
     * the way the dispatcher reports a connection that closed mid-call (NO_LEADER, which callers retry).
     */
    private final class LossyForwarding implements Rpc {
        final AtomicBoolean dropNextReply = new AtomicBoolean();
        /** Runs when a reply is dropped, before the caller hears of it. */
        volatile Runnable onDrop = () -> { };
        /** The request ID of each write served, in order. */
        final List<UUID> requests = new CopyOnWriteArrayList<>();
        private final TestRaftGroup group;

        LossyForwarding(TestRaftGroup group) {
            this.group = group;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <R> CompletionStage<R> dispatch(String method, Object request, Class<R> response) {
            assertEquals(RaftWrites.APPLY, method);
            int leader = IntStream.range(0, writes.size()).filter(i -> group.server(i).isLeader()).findFirst()
                    .orElse(-1);
            if (leader < 0) {
                return CompletableFuture.failedFuture(new CaravanException(ErrorCode.NO_LEADER, "No cluster leader"));
            }
            Endpoint<RaftWrites.ApplyRequest, Applied> apply =
                    (Endpoint<RaftWrites.ApplyRequest, Applied>) writes.get(leader).endpoints().get(0);
            requests.add(CommandCodec.decodeEntry(((RaftWrites.ApplyRequest) request).entry()).requestId());
            CompletableFuture<Applied> reply;
            try {
                reply = apply.handler().handle((RaftWrites.ApplyRequest) request).toCompletableFuture();
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
            if (dropNextReply.compareAndSet(true, false)) {
                // Not on the thread that completed the reply: that may be the leader's, which onDrop may stop.
                return reply.thenComposeAsync(applied -> {
                    onDrop.run();
                    return CompletableFuture.failedFuture(new CaravanException(ErrorCode.NO_LEADER,
                            "No cluster leader: RPC connection with the leader closed"));
                });
            }
            return reply.thenApply(response::cast);
        }

        @Override
        public <R> CompletionStage<R> call(String method, Object request, Class<R> response) {
            throw new UnsupportedOperationException(method);
        }

        @Override
        public <R> CompletionStage<R> callAt(String address, String method, Object request, Class<R> response) {
            throw new UnsupportedOperationException(method);
        }

        public CompletionStage<io.caravan.rpc.RpcStream> openNodeStream(String nodeId, String method,
                                                                        Object request) {
            throw new UnsupportedOperationException(method);
        }

        public CompletionStage<io.caravan.rpc.RpcStream> openStreamAt(String address, String method,
                                                                      Object request) {
            throw new UnsupportedOperationException(method);
        }

        @Override
        public <R> CompletionStage<R> callNode(String nodeId, String method, Object request, Class<R> response) {
            throw new UnsupportedOperationException(method);
        }

        @Override
        public List<EndpointStats> stats() {
            return List.of();
        }

        @Override
        public List<String> servers() {
            return List.of();
        }

        @Override
        public void setServers(List<String> addresses) {
        }
    }
}
