package io.caravan.agent.internal.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** The shared conformance files live beside the repository: {@code ../shared/conformance} from its root. */
final class Conformance {
    private Conformance() {
    }

    static Path agentConfigs() {
        // Surefire runs in the module directory, bundles/agent.
        Path dir = Paths.get("../../../shared/conformance/nomad-v1.5.6/agent-config").toAbsolutePath().normalize();
        if (!Files.isDirectory(dir)) {
            throw new AssertionError("conformance files not found at " + dir + " (shared/ must sit beside the repo)");
        }
        return dir;
    }
}
