package io.caravan.plugin.api.fingerprint;

import java.nio.file.Path;
import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

/** What a fingerprinter may read: attributes found so far, the client's {@code options}, and its data dir. */
@ProviderType
public interface HostFacts {
    Map<String, String> attributes();

    Map<String, String> options();

    Path dataDir();
}
