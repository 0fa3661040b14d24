package io.caravan.scheduler.internal.reconcile;

import static io.caravan.scheduler.testing.TestAllocs.alloc;
import static io.caravan.scheduler.testing.TestAllocs.complete;
import static io.caravan.scheduler.testing.TestAllocs.failed;
import static io.caravan.scheduler.testing.TestAllocs.running;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import io.caravan.api.model.Allocation;
import io.caravan.api.model.DisconnectStrategy;
import io.caravan.api.model.Evaluation;
import io.caravan.api.model.Job;
import io.caravan.api.model.Node;
import io.caravan.api.model.ReschedulePolicy;
import io.caravan.api.model.RescheduleTracker;
import io.caravan.api.model.Resources;
import io.caravan.api.model.TaskState;
import io.caravan.scheduler.internal.AllocBuilder;
import io.caravan.scheduler.testing.TestAllocs;
import io.caravan.scheduler.testing.TestJobs;
import io.caravan.scheduler.testing.TestNodes;

/** Table-driven: each row is existing state → what the reconciler must ask for, summarised as text. */
class ClusterReconcilerTest {
    private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
    private static final long NOW_NANOS = NOW.getEpochSecond() * 1_000_000_000L;
    private static final Node UP = TestNodes.node("n1").build();
    private static final Node UP2 = TestNodes.node("n2").build();
    private static final Node DOWN = TestNodes.node("n3").status(Node.STATUS_DOWN).build();
    private static final Node DISCONNECTED = TestNodes.node("n4").status(Node.STATUS_DISCONNECTED).build();

    private static Job web(int count) {
        return TestJobs.job("app").group(TestJobs.group("web", count).build()).build();
    }

    private static Job web(int count, ReschedulePolicy policy) {
        return TestJobs.job("app").group(TestJobs.group("web", count).reschedule(policy).build()).build();
    }

    private static Job batch(int count, long version) {
        return TestJobs.job("app").type(Job.TYPE_BATCH).version(version)
                .group(TestJobs.group("web", count).build()).build();
    }

    /** Expected outcome, one line per kind; empty kinds are left out. */
    private record Row(String name, Job job, boolean batch, List<Allocation> allocs, String expected) {
    }

    private static Row row(String name, Job job, List<Allocation> allocs, String expected) {
        return new Row(name, job, false, allocs, expected);
    }

    private static final ReschedulePolicy UNLIMITED_5S =
            TestJobs.reschedule(0, Duration.ZERO, Duration.ofSeconds(5), ReschedulePolicy.DELAY_CONSTANT, null, true);
    private static final ReschedulePolicy UNLIMITED_30S =
            TestJobs.reschedule(0, Duration.ZERO, Duration.ofSeconds(30), ReschedulePolicy.DELAY_CONSTANT, null, true);
    private static final ReschedulePolicy ONE_PER_HOUR = TestJobs.reschedule(1, Duration.ofHours(1),
            Duration.ofSeconds(5), ReschedulePolicy.DELAY_CONSTANT, null, false);

    private static List<Row> rows() {
        Job v1 = web(3);
        Job v2Inplace = TestJobs.job("app").version(1)
                .group(TestJobs.group("web", 3).constraint("${attr.kernel.name}", "=", "linux").build()).build();
        Job v2Destructive = TestJobs.job("app").version(1).group(TestJobs.group("web", 3)
                .task(TestJobs.task("server", "raw_exec", new Resources(500, null, 256, null, null, null, null,
                        null, null, null), Map.of("command", "/bin/false"), List.of())).build()).build();
        Job v2Meta = TestJobs.job("app").version(1).group(TestJobs.group("web", 3).meta("k", "v").build()).build();
        List<Allocation> three = List.of(running(v1, "a0", 0, "n1"), running(v1, "a1", 1, "n1"),
                running(v1, "a2", 2, "n2"));
        Instant tenSecondsAgo = NOW.minusSeconds(10);
        Job failing5 = web(1, UNLIMITED_5S);
        Job failing30 = web(1, UNLIMITED_30S);
        Job limited = web(1, ONE_PER_HOUR);
        RescheduleTracker oneRecent = new RescheduleTracker(List.of(new RescheduleTracker.Event(
                NOW_NANOS - Duration.ofMinutes(5).toNanos(), "old", "n2", Duration.ofSeconds(5))));

        List<Row> rows = new ArrayList<>();
        rows.add(row("new job places lowest indexes", web(3), List.of(),
                "place=app.web[0]/NEW,app.web[1]/NEW,app.web[2]/NEW"));
        rows.add(row("missing index filled", v1, List.of(running(v1, "a0", 0, "n1"), running(v1, "a2", 2, "n1")),
                "place=app.web[1]/NEW"));
        rows.add(row("count down stops highest indexes", web(1), three,
                "stop=a1:" + AllocStop.NOT_NEEDED + ",a2:" + AllocStop.NOT_NEEDED));
        rows.add(row("count up", web(5), three, "place=app.web[3]/NEW,app.web[4]/NEW"));
        rows.add(row("job stopped stops all live", TestJobs.job("app").stopped().group(TestJobs.group("web", 3)
                .build()).build(), List.of(running(v1, "a0", 0, "n1"), complete(v1, "a1", 1, "n1")),
                "stop=a0:" + AllocStop.NOT_NEEDED));
        rows.add(row("job purged stops all", null, three, "stop=a0:" + AllocStop.NOT_NEEDED + ",a1:"
                + AllocStop.NOT_NEEDED + ",a2:" + AllocStop.NOT_NEEDED));
        rows.add(row("node down: lost and replaced", web(2), List.of(running(v1, "a0", 0, "n1"),
                running(v1, "a1", 1, "n3")), "place=app.web[1]/LOST;stop=a1:" + AllocStop.LOST + "/lost"));
        rows.add(row("node gone: lost and replaced", web(1), List.of(running(v1, "a0", 0, "gone")),
                "place=app.web[0]/LOST;stop=a0:" + AllocStop.LOST + "/lost"));
        rows.add(row("lost beyond count: stopped, not replaced", web(1), List.of(running(v1, "a0", 0, "n1"),
                running(v1, "a1", 1, "n3")), "stop=a1:" + AllocStop.LOST + "/lost"));
        rows.add(row("migrate: stopped and replaced", web(1), List.of(alloc(v1, "a0", "web", 0, "n1",
                Allocation.DESIRED_RUN, Allocation.CLIENT_RUNNING, TestAllocs.migrate(), null, null, 0)),
                "place=app.web[0]/MIGRATE;stop=a0:" + AllocStop.MIGRATING));
        rows.add(row("failed: reschedule now", failing5,
                List.of(failed(failing5, "f0", 0, "n1", tenSecondsAgo, null)),
                "place=app.web[0]/RESCHEDULE+stop:" + AllocStop.RESCHEDULED));
        rows.add(row("failed: reschedule later", failing30,
                List.of(failed(failing30, "f0", 0, "n1", tenSecondsAgo, null)),
                "followup=" + NOW.plusSeconds(20) + ";annotate=f0:eval-1"));
        rows.add(row("failed: attempts used up", limited,
                List.of(failed(limited, "f0", 0, "n1", tenSecondsAgo, oneRecent)), ""));
        rows.add(row("failed: first attempt allowed", limited,
                List.of(failed(limited, "f0", 0, "n1", tenSecondsAgo, null)),
                "place=app.web[0]/RESCHEDULE+stop:" + AllocStop.RESCHEDULED));
        rows.add(row("service complete is replaced", web(1), List.of(complete(v1, "c0", 0, "n1")),
                "place=app.web[0]/NEW"));
        rows.add(new Row("batch complete is not re-run", batch(1, 0), true,
                List.of(complete(batch(1, 0), "c0", 0, "n1")), ""));
        rows.add(new Row("batch complete of an old version runs again", batch(1, 1), true,
                List.of(complete(batch(1, 0), "c0", 0, "n1")), "place=app.web[0]/NEW"));
        rows.add(row("in-place update (constraints only)", v2Inplace, three, "inplace=a0,a1,a2"));
        rows.add(row("destructive update (task config)", v2Destructive, List.of(running(v1, "a0", 0, "n1")),
                "place=app.web[0]/DESTRUCTIVE+stop:" + AllocStop.UPDATING + ",app.web[1]/NEW,app.web[2]/NEW"));
        rows.add(row("meta change is destructive (tasks see meta)", v2Meta, List.of(running(v1, "a0", 0, "n1")),
                "place=app.web[0]/DESTRUCTIVE+stop:" + AllocStop.UPDATING + ",app.web[1]/NEW,app.web[2]/NEW"));
        rows.add(row("group removed: stopped", TestJobs.job("app").group(TestJobs.group("api", 0).build()).build(),
                List.of(running(v1, "a0", 0, "n1")), "stop=a0:" + AllocStop.NOT_NEEDED));
        Job lostAfterHour = TestJobs.job("app").group(TestJobs.group("web", 1)
                .disconnect(Duration.ofHours(1), true).build()).build();
        Job noReplace = TestJobs.job("app").group(TestJobs.group("web", 1)
                .disconnect(Duration.ofHours(1), false).build()).build();
        rows.add(row("disconnected: unknown, replaced, timeout eval", lostAfterHour,
                List.of(running(lostAfterHour, "d0", 0, "n4")),
                "place=app.web[0]/DISCONNECTED;followup=" + NOW.plusSeconds(3600) + ";annotate=d0:eval-1"));
        rows.add(row("disconnected without replace: unknown only", noReplace,
                List.of(running(noReplace, "d0", 0, "n4")),
                "followup=" + NOW.plusSeconds(3600) + ";annotate=d0:eval-1"));
        rows.add(row("unknown with its replacement: nothing to do", lostAfterHour,
                List.of(unknownSince(lostAfterHour, "d0", "n4", NOW.minusSeconds(600)),
                        replacementOf(lostAfterHour, "r0", "n1", "d0")), ""));
        rows.add(row("unknown past lost_after: lost", lostAfterHour,
                List.of(unknownSince(lostAfterHour, "d0", "n4", NOW.minusSeconds(7200)),
                        replacementOf(lostAfterHour, "r0", "n1", "d0")), "stop=d0:" + AllocStop.LOST + "/lost"));
        rows.add(row("node back, client not reported yet: both wait", lostAfterHour,
                List.of(unknownSince(lostAfterHour, "d0", "n2", NOW.minusSeconds(600)),
                        replacementOf(lostAfterHour, "r0", "n1", "d0")), ""));
        rows.add(row("reconnected without replace: the reconnect is recorded", noReplace,
                List.of(reported(unknownSince(noReplace, "d0", "n2", NOW.minusSeconds(600)))), "annotate=d0:"));
        rows.add(row("reconnected, best_score without scores: the original stays", lostAfterHour,
                List.of(reported(unknownSince(lostAfterHour, "d0", "n2", NOW.minusSeconds(600))),
                        replacementOf(lostAfterHour, "r0", "n1", "d0")),
                "stop=r0:" + AllocStop.RECONNECT_LOST + ";annotate=d0:"));
        for (String mode : List.of(DisconnectStrategy.RECONCILE_KEEP_ORIGINAL, DisconnectStrategy.RECONCILE_KEEP_REPLACEMENT,
                DisconnectStrategy.RECONCILE_LONGEST_RUNNING)) {
            Job job = TestJobs.job("app").group(TestJobs.group("web", 1).disconnect(
                    new DisconnectStrategy(Duration.ofHours(1), true, mode, null)).build()).build();
            boolean replacementWins = mode.equals(DisconnectStrategy.RECONCILE_KEEP_REPLACEMENT);
            rows.add(row("reconnected, " + mode, job,
                    List.of(startedAt(reported(unknownSince(job, "d0", "n2", NOW.minusSeconds(600))), 3600),
                            startedAt(replacementOf(job, "r0", "n1", "d0"), 500)),
                    replacementWins ? "stop=d0:" + AllocStop.RECONNECT_LOST
                            : "stop=r0:" + AllocStop.RECONNECT_LOST + ";annotate=d0:"));
        }
        rows.add(row("reconnected, longest_running: a replacement running longer wins", TestJobs.job("app")
                        .group(TestJobs.group("web", 1).disconnect(new DisconnectStrategy(Duration.ofHours(1), true,
                                DisconnectStrategy.RECONCILE_LONGEST_RUNNING, null)).build()).build(),
                List.of(startedAt(reported(unknownSince(lostAfterHour, "d0", "n2", NOW.minusSeconds(600))), 60),
                        startedAt(replacementOf(lostAfterHour, "r0", "n1", "d0"), 500)),
                "stop=d0:" + AllocStop.RECONNECT_LOST));
        rows.add(row("terminal allocations are ignored", web(1), List.of(running(v1, "a0", 0, "n1"),
                alloc(v1, "s1", "web", 1, "n1", Allocation.DESIRED_STOP, Allocation.CLIENT_COMPLETE, null, null,
                        null, 0)), ""));
        return rows;
    }

    private static Allocation unknownSince(Job job, String id, String node, Instant since) {
        Allocation a = running(job, id, 0, node);
        return AllocBuilder.from(a).serverClientStatus(Allocation.CLIENT_UNKNOWN,
                since.getEpochSecond() * 1_000_000_000L).build();
    }

    /** The client has reported the allocation running since its node came back. */
    private static Allocation reported(Allocation unknown) {
        return unknown.withClientStatus(Allocation.CLIENT_RUNNING, "");
    }

    /** One running task, started {@code secondsAgo} before NOW. */
    private static Allocation startedAt(Allocation a, long secondsAgo) {
        return a.toBuilder().taskStates(Map.of("t", new TaskState(TaskState.STATE_RUNNING, false, 0, null,
                NOW.minusSeconds(secondsAgo), null, List.of(), null))).build();
    }

    private static Allocation replacementOf(Job job, String id, String node, String previous) {
        Allocation a = running(job, id, 0, node);
        return new Allocation(a.id(), a.namespace(), a.evalId(), a.name(), a.nodeId(), a.nodeName(), a.jobId(),
                a.job(), a.taskGroup(), a.allocatedResources(), null, a.desiredStatus(), "", null, a.clientStatus(),
                "", null, null, previous, "", "", null, null, null, "", null, "", "", 10, 10, 10, 0, 0);
    }

    @TestFactory
    Stream<DynamicTest> reconcile() {
        return rows().stream().map(r -> DynamicTest.dynamicTest(r.name(), () -> {
            AtomicInteger ids = new AtomicInteger();
            Evaluation eval = TestAllocs.eval("eval-0", r.job() == null ? web(1) : r.job(), "job-register");
            ReconcileResult result = ClusterReconciler.reconcile(new ReconcileInput(r.job(), r.batch(), r.allocs(),
                    Map.of("n1", UP, "n2", UP2, "n3", DOWN, "n4", DISCONNECTED), eval, NOW_NANOS,
                    () -> "eval-" + ids.incrementAndGet()));
            assertEquals(r.expected(), summary(result));
        }));
    }

    @TestFactory
    Stream<DynamicTest> desiredUpdates() {
        Job v1 = web(2);
        return Stream.of(
                DynamicTest.dynamicTest("place and ignore", () -> {
                    ReconcileResult r = reconcile(v1, List.of(running(v1, "a0", 0, "n1")));
                    assertEquals(1, r.desiredTgUpdates().get("web").place());
                    assertEquals(1, r.desiredTgUpdates().get("web").ignore());
                }),
                DynamicTest.dynamicTest("reschedule now counts place, stop and reschedule", () -> {
                    Job j = web(1, UNLIMITED_5S);
                    ReconcileResult r = reconcile(j, List.of(failed(j, "f0", 0, "n1", NOW.minusSeconds(10), null)));
                    var u = r.desiredTgUpdates().get("web");
                    assertEquals(List.of(1L, 1L, 1L), List.of(u.place(), u.stop(), u.rescheduleNow()));
                }),
                DynamicTest.dynamicTest("reschedule later", () -> {
                    Job j = web(1, UNLIMITED_30S);
                    ReconcileResult r = reconcile(j, List.of(failed(j, "f0", 0, "n1", NOW.minusSeconds(10), null)));
                    assertEquals(1, r.desiredTgUpdates().get("web").rescheduleLater());
                    assertEquals(Evaluation.TRIGGER_RETRY_FAILED_ALLOC, r.followUpEvals().get(0).triggeredBy());
                    assertEquals("eval-0", r.followUpEvals().get(0).previousEval());
                }));
    }

    @TestFactory
    Stream<DynamicTest> followUpEvalIsDueNow() {
        Job j = web(1, UNLIMITED_30S);
        Allocation waiting = AllocBuilder.from(failed(j, "f0", 0, "n1", NOW.minusSeconds(10), null))
                .followupEvalId("eval-0").build();
        return Stream.of(DynamicTest.dynamicTest("the follow-up eval reschedules although the delay is not over",
                () -> assertEquals("place=app.web[0]/RESCHEDULE+stop:" + AllocStop.RESCHEDULED,
                        summary(reconcile(j, List.of(waiting))))));
    }

    private static ReconcileResult reconcile(Job job, List<Allocation> allocs) {
        AtomicInteger ids = new AtomicInteger();
        return ClusterReconciler.reconcile(new ReconcileInput(job, false, allocs, Map.of("n1", UP, "n2", UP2,
                "n3", DOWN), TestAllocs.eval("eval-0", job, "job-register"), NOW_NANOS,
                () -> "eval-" + ids.incrementAndGet()));
    }

    private static String summary(ReconcileResult r) {
        List<String> parts = new ArrayList<>();
        if (!r.placements().isEmpty()) {
            parts.add("place=" + r.placements().stream().map(p -> p.name() + "/" + p.kind()
                    + (p.stopPrevious() == null ? "" : "+stop:" + p.stopPrevious().description()))
                    .collect(Collectors.joining(",")));
        }
        if (!r.stops().isEmpty()) {
            parts.add("stop=" + r.stops().stream().map(s -> s.alloc().id() + ":" + s.description()
                    + (s.clientStatus() == null ? "" : "/" + s.clientStatus())).sorted()
                    .collect(Collectors.joining(",")));
        }
        if (!r.inPlaceUpdates().isEmpty()) {
            parts.add("inplace=" + r.inPlaceUpdates().stream().map(Allocation::id).sorted()
                    .collect(Collectors.joining(",")));
        }
        if (!r.followUpEvals().isEmpty()) {
            parts.add("followup=" + r.followUpEvals().stream().map(e -> String.valueOf(e.waitUntil()))
                    .collect(Collectors.joining(",")));
        }
        if (!r.attributeUpdates().isEmpty()) {
            parts.add("annotate=" + r.attributeUpdates().stream().map(a -> a.id() + ":" + a.followupEvalId())
                    .collect(Collectors.joining(",")));
        }
        return String.join(";", parts);
    }
}
