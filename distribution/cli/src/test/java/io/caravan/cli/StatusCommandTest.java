package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class StatusCommandTest extends FakeAgentTest {
    // 2024-01-02T15:04:05Z and 2024-07-01T08:00:00Z, in Unix nanoseconds.
    private static final String JOBS = """
            [{"ID":"web","Name":"web","Type":"service","Priority":50,"Status":"running","Stop":false,
              "SubmitTime":1704207845000000000},
             {"ID":"nightly-backup","Name":"nightly-backup","Type":"batch","Priority":70,"Status":"running",
              "Periodic":true,"SubmitTime":1719820800123456789},
             {"ID":"old","Name":"old","Type":"system","Priority":100,"Status":"dead","Stop":true,"SubmitTime":0}]
            """;


    @Test
    void emptyListSaysNoRunningJobs() {
        agent.json("/v1/jobs", "[]");

        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "status");

        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("No running jobs"), r.outLines());
    }

    @Test
    void jobsAreListedWithRfc3339SubmitDatesInLocalTime() {
        agent.json("/v1/jobs", JOBS);

        Cli.Result utc = Cli.run(Map.of("CARAVAN_ADDR", agent.address(), "TZ", "UTC"), "status");

        assertEquals(0, utc.code(), utc.err());
        assertEquals(List.of(
                "ID              Type            Priority  Status          Submit Date",
                "web             service         50        running         2024-01-02T15:04:05Z",
                "nightly-backup  batch/periodic  70        running         2024-07-01T08:00:00Z",
                "old             system          100       dead (stopped)"), utc.outLines());

        Cli.Result berlin = Cli.run(Map.of("CARAVAN_ADDR", agent.address(), "TZ", "Europe/Berlin"), "status");
        assertEquals("web             service         50        running         2024-01-02T16:04:05+01:00",
                berlin.outLines().get(1));
        assertEquals("nightly-backup  batch/periodic  70        running         2024-07-01T10:00:00+02:00",
                berlin.outLines().get(2));
    }

    @Test
    void jsonPrintsTheJobStubs() throws Exception {
        agent.json("/v1/jobs", JOBS);

        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "status", "-json");

        assertEquals(0, r.code(), r.err());
        ObjectMapper plain = new ObjectMapper();
        assertEquals(plain.readTree(JOBS), plain.readTree(r.out()));
    }

    @Test
    void missingJobsEndpointIsOneErrorLineAndExitOne() {
        // No route registered: the fake answers 404 like an agent without /v1/jobs.
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "status");

        assertEquals(1, r.code());
        assertEquals("", r.out());
        assertEquals(List.of("Error querying jobs: Unexpected response code: 404 (404 page not found)"),
                r.errLines());
        assertFalse(r.err().contains("Exception"), r.err());
    }

    private static final String NONE = """
            {"jobs":[],"evals":[],"allocs":[],"nodes":[],"deployments":[],"namespaces":[],"node_pools":[]}""";

    private static String matches(String context, String ids) {
        return "{\"Matches\": " + NONE.replace("\"" + context + "\":[]", "\"" + context + "\":" + ids)
                + ", \"Truncations\": {}}";
    }

    @Test
    void aPrefixOfOneJobShowsThatJobsStatus() {
        agent.json("/v1/search", matches("jobs", "[\"web\"]"));
        agent.json("/v1/jobs", "[{\"ID\":\"web\"}]");
        agent.json("/v1/job/web", "{\"ID\":\"web\",\"Name\":\"web\",\"Type\":\"service\"}");

        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "status", "we");

        assertEquals("{\"Prefix\":\"we\",\"Context\":\"all\"}", agent.last("/v1/search").body());
        assertTrue(agent.requests().stream().anyMatch(q -> q.path().equals("/v1/job/web")), agent.requests()
                + r.err());
        assertTrue(r.out().contains("web"), r.out() + r.err());
    }

    @Test
    void severalMatchesAreListedByContextAndNoneIsUnresolved() {
        agent.json("/v1/search", matches("allocs", "[\"ab12\", \"ab34\"]"));
        Cli.Result several = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "status", "ab");
        assertEquals(1, several.code());
        assertEquals(List.of("Multiple matches found for id \"ab\"", "", "Allocs:", "ab12, ab34"),
                several.errLines());
    }

    @Test
    void noMatchIsUnableToResolve() {
        agent.json("/v1/search", "{\"Matches\": " + NONE + ", \"Truncations\": {}}");
        Cli.Result none = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "status", "zz");
        assertEquals(1, none.code());
        assertEquals(List.of("Unable to resolve ID: \"zz\""), none.errLines());
    }
}
