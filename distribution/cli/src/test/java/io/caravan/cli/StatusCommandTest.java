package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

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

    @Test
    void jobIdArgumentIsNotSupportedYet() {
        agent.json("/v1/jobs", "[]");

        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "status", "web");

        assertEquals(1, r.code());
        assertEquals(List.of(), agent.requests());
    }
}
