package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AgentInfoCommandTest {
    // Sections and keys deliberately out of order: the command sorts them.
    private static final String SELF = """
            {"config":{"Region":"global","Datacenter":"dc1","Ports":{"HTTP":4646},"Servers":[]},
             "member":{"Name":"node1.global","Port":4648},
             "stats":{
               "runtime":{"goroutines":"12","arch":"amd64","version":"17.0.15"},
               "nomad":{"server":"true","leader":"true","known_regions":"1","bootstrap":"false"},
               "client":{}
             }}
            """;

    private FakeAgent agent;

    @BeforeEach
    void start() throws Exception {
        agent = new FakeAgent().json("/v1/agent/self", SELF);
    }

    @AfterEach
    void stop() {
        agent.close();
    }

    @Test
    void printsSortedSectionsWithAlignedKeys() {
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "agent-info");

        assertEquals(0, r.code(), r.err());
        assertEquals(List.of(
                "client",
                "nomad",
                "  bootstrap     = false",
                "  known_regions = 1",
                "  leader        = true",
                "  server        = true",
                "runtime",
                "  arch       = amd64",
                "  goroutines = 12",
                "  version    = 17.0.15"), r.outLines());
        assertEquals("", r.err());
        assertEquals("GET", agent.last("/v1/agent/self").method());
    }

    @Test
    void jsonPrintsTheResponseIndentedLikeGo() throws Exception {
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", agent.address()), "agent-info", "-json");

        assertEquals(0, r.code(), r.err());
        ObjectMapper plain = new ObjectMapper();
        assertEquals(plain.readTree(SELF), plain.readTree(r.out()), "same document");
        assertTrue(r.out().startsWith("{\n    \"config\": {\n        \"Region\": \"global\","), r.out());
        assertTrue(r.out().contains("\"Servers\": []"), "Go prints empty arrays as []: " + r.out());
        assertTrue(r.out().contains("\"client\": {}"), "Go prints empty objects as {}: " + r.out());
        assertFalse(r.out().contains("\" : "), "Go writes \"key\": value");
    }
}
