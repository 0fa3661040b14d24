package io.caravan.hcl;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The shared conformance files beside the repository ({@code ../shared/conformance}), found or failed, never skipped. */
final class Corpus {
    private Corpus() {
    }

    /** @param property a system property that overrides the location; {@code relative} is from the module dir */
    static Path dir(String property, String relative) {
        String configured = System.getProperty(property);
        Path dir = configured != null ? Path.of(configured) : Path.of(System.getProperty("user.dir"), relative);
        return dir.toAbsolutePath().normalize();
    }

    static List<Path> files(Path dir, String suffix) throws IOException {
        assertTrue(Files.isDirectory(dir), "conformance files not found at " + dir);
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
        }
    }
}
