package io.caravan.agent.internal.config;

import java.nio.file.Path;

/** HCL configuration files: read with the shared HCL parser (bundles/hcl) into {@link Node}s. */
final class HclSource {
    private HclSource() {
    }

    static Node.Obj read(Path file) throws ConfigException {
        throw new ConfigException(Pos.of(file.toString()), "HCL agent configuration is not supported yet; write it as JSON");
    }
}
