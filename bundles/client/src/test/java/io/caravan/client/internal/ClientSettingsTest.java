package io.caravan.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.caravan.client.internal.hooks.ArtifactSandbox;

import org.junit.jupiter.api.Test;

/** The dotted keys the agent writes for a {@code client} block (PidTranslator) become the client's settings. */
class ClientSettingsTest {
    @Test
    void defaultsFollowNomad() {
        ClientSettings s = ClientSettings.defaults(Path.of("/var/lib/caravan"));
        assertEquals(Path.of("/var/lib/caravan/client"), s.stateDir());
        assertEquals(Path.of("/var/lib/caravan/alloc"), s.allocDir());
        assertEquals("default", s.nodePool());
        assertEquals(20000, s.minDynamicPort());
        assertEquals(32000, s.maxDynamicPort());
        assertEquals(Duration.ofSeconds(30), s.maxKillTimeout());
        assertEquals(ClientSettings.Reserved.NONE, s.reserved());
        assertEquals(ArtifactSandbox.ISOLATED, s.artifactSandbox());
    }

    @Test
    void artifactSandboxKeys() {
        ClientSettings s = ClientSettings.from(Map.of("artifact.disable.filesystem.isolation", true,
                "artifact.filesystem.isolation.extra.paths", new String[] {"f:r:/etc/ssl/cert.pem", "d:w:/srv/out",
                        "/opt/files"}), Path.of("/d"));
        // Nomad's type:mode:path form; a path the task may not read adds nothing to what artifacts may copy.
        assertEquals(new ArtifactSandbox(true, List.of(Path.of("/etc/ssl/cert.pem"), Path.of("/opt/files"))),
                s.artifactSandbox());
    }

    @Test
    void configuredKeysAndFreeFormMaps() {
        ClientSettings s = ClientSettings.from(Map.ofEntries(
                Map.entry("state.dir", "/srv/state"), Map.entry("alloc.dir", "/srv/alloc"),
                Map.entry("node.class", "gpu"), Map.entry("node.pool", "batch"),
                Map.entry("meta.my_rack", "r7"), Map.entry("options.driver.raw_exec.enable", "1"),
                Map.entry("network.interface", "eth1"), Map.entry("preferred.address.family", "ipv6"),
                Map.entry("reserved.cpu", 500L), Map.entry("reserved.memory", 512L), Map.entry("reserved.disk", 1024L),
                Map.entry("reserved.reserved.ports", "22,80"), Map.entry("max.kill.timeout", "1m"),
                Map.entry("min.dynamic.port", 30000L), Map.entry("node.max.allocs", 50L),
                Map.entry("default.ineligible", true), Map.entry("cpu.total.compute", 9000L)), Path.of("/d"));
        assertEquals(Path.of("/srv/state"), s.stateDir());
        assertEquals(Path.of("/srv/alloc"), s.allocDir());
        assertEquals("gpu", s.nodeClass());
        assertEquals("batch", s.nodePool());
        assertEquals(Map.of("my_rack", "r7"), s.meta());
        assertEquals(Map.of("driver.raw_exec.enable", "1"), s.options());
        assertEquals(new ClientSettings.Reserved(500, 512, 1024, "22,80"), s.reserved());
        assertEquals(Duration.ofMinutes(1), s.maxKillTimeout());
        assertEquals(30000, s.minDynamicPort());
        assertEquals(50, s.nodeMaxAllocs());
        assertEquals(true, s.defaultIneligible());
        assertEquals(9000, s.cpuTotalCompute());
        assertEquals(Map.of("network_interface", "eth1", "preferred_address_family", "ipv6",
                "driver.raw_exec.enable", "1"), s.fingerprintOptions());
    }
}
