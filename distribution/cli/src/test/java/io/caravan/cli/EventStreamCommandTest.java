package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** {@code event stream}: the topics and index as the API takes them, the NDJSON printed as it comes. */
class EventStreamCommandTest extends FakeAgentTest {
    private static final String STREAM = "{\"Index\":7,\"Events\":[{\"Topic\":\"Job\",\"Type\":\"JobRegistered\","
            + "\"Key\":\"web\",\"Namespace\":\"default\",\"FilterKeys\":null,\"Index\":7,\"Payload\":{}}]}\n{}\n";

    private Map<String, String> env() {
        return Map.of("CARAVAN_ADDR", agent.address());
    }

    @Test
    void printsTheStreamWithRepeatedTopicsAndTheIndex() throws Exception {
        agent.json("/v1/event/stream", STREAM);
        Cli.Result r = Cli.run(env(), "event", "stream", "-topic", "Job:*", "-topic", "Allocation:abc",
                "-index", "5");
        assertEquals(0, r.code(), r.err());
        assertEquals(STREAM, r.out());
        String query = agent.last("/v1/event/stream").query();
        assertTrue(query.contains("index=5"), query);
        assertTrue(query.contains("topic=Job%3A*") || query.contains("topic=Job:*"), query);
        assertTrue(query.contains("topic=Allocation%3Aabc") || query.contains("topic=Allocation:abc"), query);
    }

    @Test
    void aRefusalIsOneLineAndExitOne() throws Exception {
        agent.reply("/v1/event/stream", 403, "Permission denied");
        Cli.Result r = Cli.run(env(), "event", "stream");
        assertEquals(1, r.code());
        assertTrue(r.err().startsWith("Error streaming events: "), r.err());
    }
}
