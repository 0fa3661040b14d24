package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code eval list}'s query flags, {@code eval delete} (count, confirmation, IDs or filter) and {@code system}. */
class EvalDeleteSystemCommandsTest extends FakeAgentTest {
    private Map<String, String> env;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "TZ", "UTC");
    }

    @Test
    void evalListSendsItsFilters() {
        agent.json("/v1/evaluations", "[]");
        Cli.Result r = Cli.run(env, "eval", "list", "-status", "pending", "-job", "web", "-per-page", "5",
                "-page-token", "abc", "-filter", "Priority > 50");
        assertEquals(0, r.code(), r.err());
        assertEquals("No evals found\n", r.out());
        String query = agent.last("/v1/evaluations").query();
        for (String part : new String[] {"status=pending", "job=web", "per_page=5", "next_token=abc",
                "filter=Priority+%3E+50"}) {
            assertTrue(query.contains(part), query);
        }
    }

    @Test
    void filterDeleteShowsTheCountAndAsksFirst() {
        agent.json("/v1/evaluations/count", "{\"Count\": 3}").json("/v1/evaluations", "{\"Count\": 3}");
        Cli.Result declined = Cli.withInput("n\n", env, "eval", "delete", "-filter", "Status == \"pending\"");
        assertEquals(0, declined.code(), declined.err());
        assertTrue(declined.out().contains("Are you sure you want to delete 3 evals? [y/N]"), declined.out());
        assertTrue(agent.requests().stream().noneMatch(q -> q.method().equals("DELETE")), "nothing deleted");

        Cli.Result yes = Cli.withInput("y\n", env, "eval", "delete", "-filter", "Status == \"pending\"");
        assertEquals(0, yes.code(), yes.err());
        assertTrue(yes.out().endsWith("Successfully deleted 3 evaluations\n"), yes.out());
        FakeAgent.Request delete = agent.last("/v1/evaluations");
        assertEquals("DELETE", delete.method());
        assertEquals("{\"Filter\":\"Status == \\\"pending\\\"\"}", delete.body());
        assertTrue(agent.last("/v1/evaluations/count").query().contains("filter=Status"));
    }

    @Test
    void filterDeleteWithYesAsksNothingAndAnIdDeletesThatOne() {
        agent.json("/v1/evaluations/count", "{\"Count\": 2}").json("/v1/evaluations", "{\"Count\": 2}");
        Cli.Result r = Cli.run(env, "eval", "delete", "-yes", "-filter", "JobID == \"web\"");
        assertEquals(0, r.code(), r.err());
        assertEquals("Successfully deleted 2 evaluations\n", r.out());

        agent.json("/v1/evaluations", "{\"Count\": 1}");
        Cli.Result one = Cli.run(env, "eval", "delete", "9ecffbba-73be-d909-5d7e-ac2694c10e0c");
        assertEquals(0, one.code(), one.err());
        assertEquals("Successfully deleted 1 evaluation\n", one.out());
        assertEquals("{\"EvalIDs\":[\"9ecffbba-73be-d909-5d7e-ac2694c10e0c\"]}", agent.last("/v1/evaluations").body());
    }

    @Test
    void deleteNeedsAnIdOrAFilterButNotBoth() {
        assertEquals(1, Cli.run(env, "eval", "delete").code());
        assertEquals(1, Cli.run(env, "eval", "delete", "-filter", "x", "abc").code());
    }

    @Test
    void aRefusalFromTheServerIsPrinted() {
        agent.json("/v1/evaluations/count", "{\"Count\": 2}").reply("/v1/evaluations", 400,
                "eval broker is enabled; eval broker must be paused to delete evals");
        Cli.Result r = Cli.run(env, "eval", "delete", "-yes", "-filter", "JobID == \"web\"");
        assertEquals(1, r.code());
        assertTrue(r.err().contains("eval broker must be paused"), r.err());
    }

    @Test
    void systemGcAndReconcile() {
        agent.json("/v1/system/gc", "").json("/v1/system/reconcile/summaries", "");
        Cli.Result gc = Cli.run(env, "system", "gc");
        assertEquals(0, gc.code(), gc.err());
        assertEquals("PUT", agent.last("/v1/system/gc").method());
        Cli.Result rec = Cli.run(env, "system", "reconcile", "summaries");
        assertEquals(0, rec.code(), rec.err());
        assertEquals("Successfully reconciled job summaries\n", rec.out());
        assertEquals("PUT", agent.last("/v1/system/reconcile/summaries").method());
    }
}
