package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.api.CaravanException;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FsmTest {
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final StateStore store = StateStore.create(NomadTables.ALL, timers, timers);
    private final Fsm fsm = new Fsm(store);

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    static Job job(String id, int priority) throws Exception {
        return Jobs.canonical(NomadJson.mapper().readTree("""
                {"Job": {"ID": "%s", "Priority": %d, "TaskGroups": [{"Name": "web",
                  "Tasks": [{"Name": "server", "Driver": "raw_exec", "Config": {"command": "/bin/sleep"}}]}]}}
                """.formatted(id, priority)), "global").withSubmitTime(1000);
    }

    private Command.Result register(long index, Job job) {
        Evaluation eval = Evaluation.forJob("eval-" + index, job, Evaluation.TRIGGER_JOB_REGISTER, 1000);
        // Through the codec, as the log carries it.
        return fsm.apply(index, CommandCodec.decode(CommandCodec.encode(new Command.JobRegister(job, eval, false, 0))));
    }

    @Test
    void registerStoresTheJobItsVersionSummaryAndPendingEval() throws Exception {
        Command.Result r = register(5, job("web", 50));
        assertEquals(Command.Result.ok(5, 5, 5), r);
        StateSnapshot s = store.snapshot();
        Job stored = s.get(NomadTables.JOBS, NomadTables.key("default", "web")).orElseThrow();
        assertEquals(0L, stored.version());
        assertEquals(5L, stored.createIndex());
        assertEquals(Job.STATUS_PENDING, stored.status());
        assertEquals(1, s.count(NomadTables.JOB_VERSIONS));
        assertEquals(List.of("web"), List.copyOf(s.get(NomadTables.JOB_SUMMARIES, NomadTables.key("default", "web"))
                .orElseThrow().summary().keySet()));
        Evaluation eval = s.get(NomadTables.EVALS, "eval-5").orElseThrow();
        assertEquals(Evaluation.STATUS_PENDING, eval.status());
        assertEquals(5, eval.createIndex());
        assertEquals(5, eval.jobModifyIndex());
        assertEquals(5, s.tableIndex("jobs"));
    }

    @Test
    void reRegisteringTheSameSpecKeepsTheVersionAndAChangeBumpsIt() throws Exception {
        register(5, job("web", 50));
        Command.Result same = register(6, job("web", 50));
        assertEquals(5, same.jobModifyIndex(), "unchanged spec: JobModifyIndex stays");
        Job unchanged = store.snapshot().get(NomadTables.JOBS, NomadTables.key("default", "web")).orElseThrow();
        assertEquals(0L, unchanged.version());
        assertEquals(6L, unchanged.modifyIndex());

        register(7, job("web", 70));
        StateSnapshot s = store.snapshot();
        Job changed = s.get(NomadTables.JOBS, NomadTables.key("default", "web")).orElseThrow();
        assertEquals(1L, changed.version());
        assertEquals(5L, changed.createIndex());
        assertEquals(7L, changed.jobModifyIndex());
        assertEquals(2, s.count(NomadTables.JOB_VERSIONS));
    }

    @Test
    void deregisterStopsAndPurgeRemovesEverything() throws Exception {
        Job web = job("web", 50);
        register(5, web);
        register(6, job("web", 60));
        Evaluation stopEval = Evaluation.forJob("stop", web, Evaluation.TRIGGER_JOB_DEREGISTER, 2000);
        fsm.apply(7, new Command.JobDeregister("default", "web", false, stopEval));
        assertTrue(store.snapshot().get(NomadTables.JOBS, NomadTables.key("default", "web")).orElseThrow().stop());

        Evaluation purgeEval = Evaluation.forJob("purge", web, Evaluation.TRIGGER_JOB_DEREGISTER, 3000);
        fsm.apply(8, new Command.JobDeregister("default", "web", true, purgeEval));
        StateSnapshot s = store.snapshot();
        assertEquals(0, s.count(NomadTables.JOBS));
        assertEquals(0, s.count(NomadTables.JOB_VERSIONS));
        assertEquals(0, s.count(NomadTables.JOB_SUMMARIES));
        assertEquals(4, s.count(NomadTables.EVALS), "every register and deregister leaves its evaluation");
    }

    @Test
    void checkIndexRegistersOnlyAgainstTheExpectedVersion() throws Exception {
        Job web = job("web", 50);
        Evaluation eval = Evaluation.forJob("e1", web, Evaluation.TRIGGER_JOB_REGISTER, 1);
        assertEquals(Command.Result.ok(3, 3, 3), fsm.apply(3, new Command.JobRegister(web, eval, true, 0)));
        Command.Result stale = fsm.apply(4, new Command.JobRegister(job("web", 60), eval, true, 0));
        assertEquals(409, stale.errorCode());
        assertEquals("Enforcing job modify index 0: job exists with conflicting job modify index: 3", stale.error());
        assertEquals(Command.Result.ok(5, 5, 5), fsm.apply(5, new Command.JobRegister(job("web", 60),
                Evaluation.forJob("e2", web, Evaluation.TRIGGER_JOB_REGISTER, 1), true, 3)));
    }

    @Test
    void deregisteringAnUnknownJobIsARejectionNotAnException() {
        Command.Result r = fsm.apply(3, new Command.JobDeregister("default", "nope", false,
                new Evaluation("e", "default", 50, "service", "job-deregister", "nope", 0, "", 0, "", "pending", "",
                        null, null, "", "", "", null, null, null, "", false, false, null, "", 0, 0, 0, 0, 0)));
        assertEquals(404, r.errorCode());
        assertEquals(0, store.snapshot().count(NomadTables.EVALS), "a rejected command changes nothing");
    }

    @Test
    void canonicalisationFillsNomadsDefaultsAndValidationListsEveryProblem() throws Exception {
        Job web = job("web", 0);
        assertEquals(50, web.priority());
        assertEquals("default", web.namespace());
        assertEquals("global", web.region());
        assertEquals(List.of("*"), web.datacenters());
        assertEquals(1, web.taskGroups().get(0).count());
        assertEquals(2, web.taskGroups().get(0).restartPolicy().attempts());
        assertEquals(300, web.taskGroups().get(0).tasks().get(0).resources().memoryMb());

        CaravanException e = assertThrows(CaravanException.class, () -> Jobs.canonical(NomadJson.mapper().readTree("""
                {"Job": {"ID": "bad id", "Type": "daemon", "TaskGroups": [{"Name": "g", "Count": -1,
                  "Tasks": [{"Name": "t"}, {"Name": "t", "Driver": "exec"}]}, {"Tasks": []}]}}
                """), "global"));
        assertEquals(400, e.code().httpStatus());
        assertEquals("""
                7 errors in the job:
                * ID: job ID "bad id" contains a space or a null character
                * Type: invalid job type "daemon"; must be one of service, batch, system, sysbatch
                * TaskGroups[0].Count: count must be 0 or more, not -1
                * TaskGroups[0].Tasks[0].Driver: missing task driver
                * TaskGroups[0].Tasks[1].Name: task "t" is defined more than once
                * TaskGroups[1].Name: missing task group name
                * TaskGroups[1].Tasks: task group "" has no tasks""", e.getMessage());
    }

    @Test
    void anEvaluationThatPlacedEverythingCancelsTheJobsBlockedEvalSoAStoppedJobIsDead() throws Exception {
        Job job = job("web", 50);
        register(5, job);
        io.caravan.api.model.AllocMetric failed = new io.caravan.api.model.AllocMetric(0, 0, 0, "default", null,
                null, null, 0, null, null, null, null, null, null, 0);
        Evaluation first = store.snapshot().get(NomadTables.EVALS, "eval-5").orElseThrow().toBuilder()
                .status(Evaluation.STATUS_COMPLETE).failedTgAllocs(java.util.Map.of("web", failed)).build();
        Evaluation blocked = Evaluation.forJob("blocked", job, Evaluation.TRIGGER_QUEUED_ALLOCS, 1000).toBuilder()
                .status(Evaluation.STATUS_BLOCKED).build();
        fsm.apply(6, new Command.EvalUpsert(List.of(blocked, first)));
        String key = NomadTables.key("default", "web");
        assertEquals(Job.STATUS_PENDING, store.snapshot().get(NomadTables.JOBS, key).orElseThrow().status());

        Evaluation stop = Evaluation.forJob("stop", job, Evaluation.TRIGGER_JOB_DEREGISTER, 2000);
        fsm.apply(7, new Command.JobDeregister("default", "web", false, stop));
        assertEquals(Evaluation.STATUS_BLOCKED, store.snapshot().get(NomadTables.EVALS, "blocked").orElseThrow()
                .status(), "a pending evaluation cancels nothing");
        fsm.apply(8, new Command.EvalUpsert(List.of(stop.toBuilder().status(Evaluation.STATUS_COMPLETE)
                .modifyTime(3000).build())));

        StateSnapshot s = store.snapshot();
        Evaluation canceled = s.get(NomadTables.EVALS, "blocked").orElseThrow();
        assertEquals(Evaluation.STATUS_CANCELED, canceled.status());
        assertEquals("evaluation \"stop\" successful", canceled.statusDescription());
        assertEquals(8, canceled.modifyIndex());
        assertEquals(Job.STATUS_DEAD, s.get(NomadTables.JOBS, key).orElseThrow().status());
    }
}
