package io.caravan.agent.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ConfigDiffTest {
    private static final Schema SCHEMA = Schema.nomadAgent();

    private static ConfigView config(String json) throws Exception {
        return new ConfigView(Decoder.decode(JsonSource.read("t.json", json), SCHEMA.root()));
    }

    @Test
    void noChangeIsAnEmptyDiff() throws Exception {
        ConfigView c = config("{\"log_level\": \"INFO\", \"client\": {\"meta\": {\"a\": \"1\"}}}");
        ConfigDiff diff = ConfigDiff.between(c, c, SCHEMA);
        assertEquals(List.of(), diff.changed());
        assertEquals(c, diff.effective());
    }

    @Test
    void liveKeysApplyAndRestartKeysKeepTheirRunningValue() throws Exception {
        ConfigView running = config("""
                {"region": "a", "log_level": "INFO", "ports": {"http": 4646},
                 "client": {"enabled": true, "meta": {"rack": "r1", "gone": "x"}},
                 "plugin": {"raw_exec": {"config": {"enabled": false}}}}
                """);
        ConfigView next = config("""
                {"region": "b", "log_level": "DEBUG", "ports": {"http": 5555},
                 "client": {"enabled": true, "meta": {"rack": "r2"}, "node_class": "big"},
                 "plugin": {"raw_exec": {"config": {"enabled": true}}}}
                """);
        ConfigDiff diff = ConfigDiff.between(running, next, SCHEMA);
        assertEquals(List.of("client.meta.gone", "client.meta.rack", "client.node_class", "log_level",
                "plugin.raw_exec.config", "ports.http", "region"), diff.changed());
        assertEquals(List.of("ports.http", "region"), diff.restartRequired());
        assertEquals(List.of("client.meta.gone", "client.meta.rack", "client.node_class", "log_level",
                "plugin.raw_exec.config"), diff.live());
        ConfigView effective = diff.effective();
        assertEquals("a", effective.string("region", null), "restart-scoped: the running value stays");
        assertEquals(4646L, effective.integer("ports.http", 0));
        assertEquals("DEBUG", effective.string("log_level", null));
        assertEquals(Map.of("rack", "r2"), effective.map("client.meta"));
        assertEquals("big", effective.string("client.node_class", null));
    }

    @Test
    void aRestartKeyThatWasUnsetIsRemovedAgain() throws Exception {
        ConfigDiff diff = ConfigDiff.between(config("{}"), config("{\"datacenter\": \"dc9\"}"), SCHEMA);
        assertEquals(List.of("datacenter"), diff.restartRequired());
        assertEquals(null, diff.effective().get("datacenter"));
    }
}
