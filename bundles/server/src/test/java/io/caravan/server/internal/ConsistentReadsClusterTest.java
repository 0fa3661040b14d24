package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Identity;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.consensus.internal.TestRaftGroup;
import io.caravan.http.ApiResponse;
import io.caravan.http.AsyncHandler;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.RouteTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nomad's default read consistency on three real Raft servers: a read through a follower's route sees a write the
 * leader has acknowledged, every time; {@code ?stale} answers from the server's own state even with no leader, where a
 * consistent read answers "No cluster leader".
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConsistentReadsClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final List<ServerState> states = List.of(new ServerState(), new ServerState(), new ServerState());
    private final List<RaftWrites> writes = List.of(new RaftWrites(), new RaftWrites(), new RaftWrites());
    /** Each server's {@code GET /v1/job/{id}}, as its HTTP API serves it. */
    private final List<AsyncHandler> jobReads = new ArrayList<>();

    @AfterEach
    void stop() {
        writes.forEach(RaftWrites::deactivate);
        states.forEach(ServerState::deactivate);
    }

    @Test
    void aFollowerReadSeesWhatTheLeaderAcknowledgedAndStaleAnswersWithoutALeader() throws Exception {
        try (TestRaftGroup group = TestRaftGroup.start(dir, states)) {
            assertTrue(group.awaitReady(WAIT), "a leader within " + WAIT);
            for (int i = 0; i < states.size(); i++) {
                writes.get(i).bindReplicator(group.server(i));
                jobReads.add(jobRoute(states.get(i), writes.get(i)));
            }
            int leader = IntStream.range(0, states.size()).filter(i -> group.server(i).isLeader()).findFirst()
                    .orElseThrow();
            List<Integer> followers = IntStream.range(0, states.size()).filter(i -> i != leader).boxed().toList();

            for (int n = 0; n < 50; n++) {
                String id = "web-" + n;
                Job job = FsmTest.job(id, 50);
                long index = writes.get(leader).submit(new Command.JobRegister(job,
                                Evaluation.forJob(UUID.randomUUID().toString(), job, Evaluation.TRIGGER_JOB_REGISTER,
                                        1), true, 0))
                        .toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS).index();
                int follower = followers.get(n % followers.size());
                ApiResponse answer = read(follower, id, false, WAIT);
                assertEquals(200, answer.status(), "read " + n + " on server " + follower);
                assertEquals(id, ((Job) answer.body()).id(), "read " + n + " on server " + follower);
                assertTrue(answer.meta().index() >= index, "read " + n + ": index " + answer.meta().index()
                        + " before the write's " + index);
                assertTrue(answer.meta().knownLeader(), "a follower knows the leader");
            }
            ApiResponse onLeader = read(leader, "web-0", false, WAIT);
            assertTrue(onLeader.meta().knownLeader());
            assertEquals(0, onLeader.meta().lastContactMillis(), "the leader is its own last contact");

            // The leader and one follower gone: the last server has no quorum, so no leader.
            int last = followers.get(1);
            group.stop(leader);
            group.stop(followers.get(0));
            ApiResponse stale = read(last, "web-49", true, WAIT);
            assertEquals(200, stale.status(), "a stale read answers from the server's own state");
            assertEquals("web-49", ((Job) stale.body()).id());

            long started = System.nanoTime();
            ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> read(last, "web-49", false, WAIT));
            CaravanException e = assertInstanceOf(CaravanException.class, refused.getCause());
            assertEquals(ErrorCode.NO_LEADER, e.code());
            assertEquals("No cluster leader", e.getMessage());
            assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(20), "the wait for a leader is bounded");
            // Stale answers still flow, and say the leader is not known once the server stops following one.
            ApiResponse again = read(last, "web-49", true, WAIT);
            assertEquals(200, again.status());
            assertEquals(false, again.meta().knownLeader(), "X-Nomad-KnownLeader: false while no leader is known");
            assertTrue(again.meta().lastContactMillis() > 0, "X-Nomad-LastContact: since the leader was last heard");
        }
    }

    private ApiResponse read(int server, String id, boolean stale, Duration wait) throws Exception {
        Map<String, String> params = new HashMap<>(Map.of("id", id));
        if (stale) {
            params.put("?stale", "");
        }
        return jobReads.get(server).handle(new RoutesHarness.Request("GET", "/v1/job/{id}", params, null,
                Identity.UNRESTRICTED)).toCompletableFuture().get(wait.toSeconds(), TimeUnit.SECONDS);
    }

    private static AsyncHandler jobRoute(ServerState state, RaftWrites raft) {
        AsyncHandler[] found = new AsyncHandler[1];
        new JobRoutes(state, new ClusterRoutesTest.Agent(true, false), raft, JobLimitsTest.config(100))
                .register(new RouteTable() {
                    public RouteTable routeAsync(String m, String pattern, ApiEndpoint endpoint,
                                                 AsyncHandler handler) {
                        if (m.equals("GET") && pattern.equals("/v1/job/{id}")) {
                            found[0] = handler;
                        }
                        return this;
                    }
                });
        return found[0];
    }
}
