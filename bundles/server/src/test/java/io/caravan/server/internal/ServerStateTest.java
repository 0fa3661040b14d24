package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.state.StateSnapshot;
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
        Job job = FsmTest.job(id, 50);
        return CommandCodec.encode(new Command.JobRegister(job,
                Evaluation.forJob("eval-" + id, job, Evaluation.TRIGGER_JOB_REGISTER, 1), false, 0));
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
