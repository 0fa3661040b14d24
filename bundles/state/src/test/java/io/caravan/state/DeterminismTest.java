package io.caravan.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Apply must be deterministic (STYLE.md §5): the store reads no clock and no randomness; the Raft index and
 * any time or ID come from the caller. Checked on the sources, so a later edit cannot slip one in unnoticed.
 */
class DeterminismTest {

    private static final List<String> FORBIDDEN = List.of("currentTimeMillis", "nanoTime", "Instant.now",
            "LocalDateTime.now", "Clock.", "Random", "UUID.randomUUID", "Math.random");

    @Test
    void storeSourcesReadNoClockOrRandomness() throws IOException {
        Path main = Path.of("src/main/java");
        assertTrue(Files.isDirectory(main), "run from the module directory");
        List<String> hits = new ArrayList<>();
        try (Stream<Path> files = Files.walk(main)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String text = Files.readString(f);
                for (String word : FORBIDDEN) {
                    if (text.contains(word)) {
                        hits.add(main.relativize(f) + ": " + word);
                    }
                }
            }
        }
        assertEquals(List.of(), hits);
    }
}
