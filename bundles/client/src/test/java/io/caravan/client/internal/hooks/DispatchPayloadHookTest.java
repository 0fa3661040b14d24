package io.caravan.client.internal.hooks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

import io.caravan.api.codec.Snappy;
import io.caravan.api.json.NomadJson;
import io.caravan.api.model.Allocation;
import io.caravan.client.internal.alloc.TaskEvents;
import io.caravan.client.internal.testing.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DispatchPayloadHookTest {
    @TempDir
    Path dir;

    @Test
    void snappyBlocksDecode() {
        // "abcdabcd": a 4-byte literal, then a copy of 4 bytes at offset 4
        byte[] encoded = {0x08, 0x0c, 'a', 'b', 'c', 'd', 0x01, 0x04};
        assertArrayEquals("abcdabcd".getBytes(StandardCharsets.US_ASCII),
                Snappy.decode(encoded));
        assertNull(Snappy.decodeOrNull("plain text".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void payloadIsWrittenToLocalAndConfinedThere() throws Exception {
        byte[] snappyHello = {0x05, 0x10, 'h', 'e', 'l', 'l', 'o'};
        TaskHookContext ctx = context(snappyHello, "input/data.txt");
        new DispatchPayloadHook().prestart(ctx);
        assertEquals("hello", Files.readString(ctx.allocDir().taskLocal("t").resolve("input/data.txt")));

        TaskHookContext raw = context("not snappy".getBytes(StandardCharsets.UTF_8), "raw.txt");
        new DispatchPayloadHook().prestart(raw);
        assertEquals("not snappy", Files.readString(raw.allocDir().taskLocal("t").resolve("raw.txt")));

        assertThrows(java.io.IOException.class,
                () -> new DispatchPayloadHook().prestart(context(snappyHello, "../../escape")));
    }

    private TaskHookContext context(byte[] payload, String file) {
        Map<String, Object> task = Fixtures.shTask("t", "true");
        task.put("DispatchPayload", Map.of("File", file));
        Allocation alloc = Fixtures.alloc("n1", "job", "batch", Map.of(), task);
        @SuppressWarnings("unchecked")
        Map<String, Object> json = NomadJson.mapper().convertValue(alloc, LinkedHashMap.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> job = (Map<String, Object>) json.get("Job");
        job.put("Payload", Base64.getEncoder().encodeToString(payload));
        Allocation withPayload = NomadJson.mapper().convertValue(json, Allocation.class);
        return new TaskHookContext(withPayload, withPayload.job().taskGroups().get(0).tasks().get(0), null,
                AllocDir.of(dir, alloc.id()), new TaskEvents(Clock.systemUTC()), e -> { });
    }
}
