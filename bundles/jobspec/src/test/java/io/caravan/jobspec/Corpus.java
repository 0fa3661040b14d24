package io.caravan.jobspec;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the Nomad v1.5.6 conformance files are: surefire's property, or the path next to the repository. */
final class Corpus {

    private Corpus() {
    }

    static Path dir(String sub) {
        String prop = System.getProperty("nomad.conformance.dir");
        Path base = prop != null ? Path.of(prop) : Path.of("../../../shared/conformance/nomad-v1.5.6");
        Path dir = base.resolve(sub);
        // Fail, never skip: a missing corpus would make the conformance test pass vacuously.
        assertTrue(Files.isDirectory(dir), "conformance corpus missing: " + dir.toAbsolutePath());
        return dir;
    }
}
