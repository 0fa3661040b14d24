package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.state.StateSnapshot;
import io.caravan.state.TableSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The CommandHandler side: entries applied from bytes, snapshots the Raft log keeps, restores it replays. */
class ServerStateTest {
    private final ServerState a = new ServerState();
    private final ServerState b = new ServerState();

    @AfterEach
    void stop() {
        a.deactivate();
        b.deactivate();
    }

    private static byte[] register(String id) throws Exception {
        return register(id, 50, false);
    }

    /** A new write of job {@code id}; the priority stands for its spec. With {@code create}: only if it is new. */
    private static byte[] register(String id, int priority, boolean create) throws Exception {
        Job job = FsmTest.job(id, priority);
        return CommandCodec.encode(new Command.JobRegister(job,
                Evaluation.forJob(UUID.randomUUID().toString(), job, Evaluation.TRIGGER_JOB_REGISTER, 1), create, 0));
    }

    private static Command.Result result(byte[] applied) {
        return CommandCodec.decodeResult(applied);
    }

    private static Job web(ServerState server) {
        return server.store().snapshot().get(NomadTables.JOBS, NomadTables.key("default", "web")).orElseThrow();
    }

    /**
     * A write retried after its reply was lost reaches the log twice. Applied again, the first version's spec would
     * come back as a new version (a job "gains a version"); instead the retry changes nothing, tells no listener, and
     * answers the first result.
     */
    @Test
    void aRetriedWriteAppliesOnceAndAnswersTheFirstResult() throws Exception {
        List<Long> told = new ArrayList<>();
        a.addListener(new ServerState.AppliedListener() {
            @Override
            public void applied(long index, Command command) {
                told.add(index);
            }

            @Override
            public void restored() {
            }
        });
        byte[] first = register("web", 50, false);
        Command.Result answered = result(a.apply(1, 1000, first));
        assertEquals(Command.Result.ok(1, 1, 1), answered);
        a.apply(2, 1001, register("web", 60, false));

        assertEquals(answered, result(a.apply(3, 1002, first)), "the retry answers the first result");
        Job web = web(a);
        assertEquals(1, web.version(), "the retry added no version");
        assertEquals(60, web.priority());
        assertEquals(2, web.modifyIndex());
        assertEquals(2, a.store().snapshot().count(NomadTables.JOB_VERSIONS));
        assertEquals(2, a.store().snapshot().count(NomadTables.EVALS));
        assertEquals(List.of(1L, 2L), told, "listeners hear of applied writes only");
    }

    /** The table of applied writes is state: a server restored from a snapshot (or restarted) still knows them. */
    @Test
    void aRetryAfterASnapshotRestoreStillAppliesOnce() throws Exception {
        byte[] first = register("web", 50, true);
        Command.Result answered = result(a.apply(1, 1000, first));
        ByteArrayOutputStream snapshot = new ByteArrayOutputStream();
        a.snapshot(snapshot);
        b.restore(1, new ByteArrayInputStream(snapshot.toByteArray()));

        // Created only if new: applied again, the retry would be refused with 409 although the write succeeded.
        for (ServerState server : List.of(a, b)) {
            assertEquals(answered, result(server.apply(2, 1001, first)));
            assertEquals(0, web(server).version());
            assertEquals(1, web(server).modifyIndex(), "the retry wrote nothing");
            assertEquals(1, server.store().snapshot().count(NomadTables.JOB_VERSIONS));
        }
        for (TableSpec<?> table : NomadTables.ALL) {
            assertEquals(a.store().snapshot().all(table).toList(), b.store().snapshot().all(table).toList(),
                    "both servers hold the same " + table.name());
        }
    }

    /** A rejected write is answered the same way when retried, even if the state would now let it through. */
    @Test
    void aRetriedRejectionIsAnsweredNotReapplied() throws Exception {
        a.apply(1, 1000, register("web"));
        byte[] create = register("web", 60, true);
        Command.Result refused = result(a.apply(2, 1001, create));
        assertEquals(409, refused.errorCode());
        Job job = web(a);
        a.apply(3, 1002, CommandCodec.encode(new Command.JobDeregister("default", "web", true,
                Evaluation.forJob("purge", job, Evaluation.TRIGGER_JOB_DEREGISTER, 1))));

        assertEquals(refused, result(a.apply(4, 1003, create)));
        assertEquals(0, a.store().snapshot().count(NomadTables.JOBS), "the refused write did not apply later");
    }

    /**
     * The table is bounded by the leader's stamps of the entries, the same on every server: a write is known for
     * {@link AppliedRequests#RETAIN} of log time, and the oldest go first beyond {@link AppliedRequests#MAX_ROWS}.
     */
    @Test
    void appliedWritesAreForgottenByLogTimeAndCount() throws Exception {
        long t = 1_000_000;
        byte[] old = register("web", 50, false);
        a.apply(1, t, old);
        a.apply(2, t + AppliedRequests.RETAIN.toMillis(), register("db"));
        assertEquals(2, a.store().snapshot().count(AppliedRequests.TABLE), "kept for RETAIN");
        a.apply(3, t + AppliedRequests.RETAIN.toMillis() + 1, register("cache"));
        assertEquals(2, a.store().snapshot().count(AppliedRequests.TABLE));
        assertEquals(Optional.empty(), a.store().snapshot().get(AppliedRequests.TABLE,
                CommandCodec.decodeEntry(old).requestId().toString()), "older than RETAIN: forgotten");

        long index = 4;
        for (int i = 0; i < AppliedRequests.MAX_ROWS; i++) {
            a.apply(index++, t + AppliedRequests.RETAIN.toMillis() + 1, CommandCodec.encode(new Command.EvalUpsert(
                    List.of())));
        }
        StateSnapshot s = a.store().snapshot();
        assertEquals(AppliedRequests.MAX_ROWS, s.count(AppliedRequests.TABLE));
        assertEquals(4, s.all(AppliedRequests.TABLE).mapToLong(AppliedRequests.Row::index).min().orElseThrow(),
                "the two oldest went first");
    }

    @Test
    void aSnapshotRestoresTheSameStateOnAnotherServer() throws Exception {
        a.apply(1, 1000, register("web"));
        a.apply(2, 1000, register("db"));
        ByteArrayOutputStream snapshot = new ByteArrayOutputStream();
        a.snapshot(snapshot);

        b.restore(2, new ByteArrayInputStream(snapshot.toByteArray()));
        StateSnapshot restored = b.store().snapshot();
        assertEquals(2, restored.count(NomadTables.JOBS));
        assertEquals(2, restored.count(NomadTables.EVALS));
        assertEquals(a.store().snapshot().get(NomadTables.JOBS, NomadTables.key("default", "web")),
                restored.get(NomadTables.JOBS, NomadTables.key("default", "web")));
        assertEquals(2, restored.latestIndex());

        // The log continues after the snapshot's index.
        b.apply(3, 1000, register("cache"));
        assertEquals(3, b.store().snapshot().count(NomadTables.JOBS));
    }

    /**
     * What arrived in the log without our endpoint code building it is rejected the same way on every replica and
     * changes nothing: the server keeps applying what follows (the poison pill of issue 21 halted every server).
     */
    @Test
    void entriesThatAreNotValidCommandsAreRejectedAndChangeNothing() throws Exception {
        a.apply(1, 1000, register("web"));
        long index = 2;
        for (String entry : List.of("{\"Type\":\"NoSuchCommand\",\"Command\":{}}", "", "not json", "[]", "{}",
                "{\"Type\":\"JobRegister\",\"Command\":{}}",
                "{\"Type\":\"JobRegister\",\"Command\":{\"Job\":{\"ID\":\"x\"}}}",
                "{\"Type\":\"NodeStatusUpdate\",\"Command\":{\"NodeID\":\"n\",\"Status\":\"bogus\"}}",
                "{\"Type\":\"EvalUpsert\",\"Command\":{\"Evals\":[null]}}",
                "{\"Type\":\"AllocClientUpdate\",\"Command\":{\"Nodes\":[{\"NodeID\":\"n\"}]}}",
                "{\"Type\":\"PlanApply\",\"Command\":{\"EvalID\":\"e\",\"Placed\":[{\"ID\":\"a\"}]}}",
                "{\"Type\":\"JobRegister\",\"Command\":" + "[".repeat(5000) + "]".repeat(5000) + "}")) {
            byte[] bytes = entry.getBytes(StandardCharsets.UTF_8);
            assertThrows(IllegalArgumentException.class, () -> a.validate(bytes), entry);
            Command.Result result = CommandCodec.decodeResult(a.apply(index++, 1000, bytes));
            assertEquals(400, result.errorCode(), entry);
        }
        assertEquals(1, a.store().snapshot().count(NomadTables.JOBS));
        assertEquals(1, a.store().snapshot().latestIndex(), "a rejected entry writes nothing");
        a.apply(index, 1000, register("db"));
        assertEquals(2, a.store().snapshot().count(NomadTables.JOBS));
    }

    @Test
    void validCommandsPassTheLeadersGate() throws Exception {
        a.validate(register("web"));
    }

    @Test
    void restoringNothingResetsToEmpty() throws Exception {
        a.apply(1, 1000, register("web"));
        a.restore(0, new ByteArrayInputStream(new byte[0]));
        assertEquals(0, a.store().snapshot().count(NomadTables.JOBS));
        assertEquals(0, a.store().snapshot().latestIndex());
    }

    @Test
    void aCorruptSnapshotIsAnErrorAndChangesNothing() throws Exception {
        a.apply(1, 1000, register("web"));
        assertThrows(IOException.class, () -> a.restore(5, new ByteArrayInputStream(new byte[] {1, 2, 3})));
        assertEquals(1, a.store().snapshot().count(NomadTables.JOBS));
    }

    @Test
    void allocationsRestoreWithTheirJobsWrittenOnceAndShared() throws Exception {
        a.apply(1, 1000, register("web"));
        Job stored = a.store().snapshot().get(NomadTables.JOBS, NomadTables.key("default", "web")).orElseThrow();
        java.util.List<io.caravan.api.model.Allocation> placed = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            placed.add(io.caravan.api.json.NomadJson.mapper().readValue("""
                    {"ID": "a%d", "Namespace": "default", "Name": "web.web[%d]", "NodeID": "n", "JobID": "web",
                     "TaskGroup": "web", "DesiredStatus": "run", "ClientStatus": "pending"}
                    """.formatted(i, i), io.caravan.api.model.Allocation.class));
        }
        a.apply(2, 1000, CommandCodec.encode(new Command.PlanApply("eval-web", stored, java.util.List.of(), placed,
                5)));
        ByteArrayOutputStream snapshot = new ByteArrayOutputStream();
        a.snapshot(snapshot);
        String text = snapshot.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(1, text.split("\"TaskGroups\"", -1).length - 1 - 2,
                "the job is written once in the allocations (plus once each in jobs and versions)");

        b.restore(2, new ByteArrayInputStream(snapshot.toByteArray()));
        StateSnapshot restored = b.store().snapshot();
        Job first = restored.get(NomadTables.ALLOCS, "a0").orElseThrow().job();
        assertEquals(stored, first);
        for (int i = 1; i < 3; i++) {
            org.junit.jupiter.api.Assertions.assertSame(first, restored.get(NomadTables.ALLOCS, "a" + i)
                    .orElseThrow().job());
        }
        assertEquals(a.store().snapshot().all(NomadTables.ALLOCS).toList(), restored.all(NomadTables.ALLOCS).toList());
    }
}
