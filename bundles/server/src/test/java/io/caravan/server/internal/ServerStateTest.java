package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

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
}
