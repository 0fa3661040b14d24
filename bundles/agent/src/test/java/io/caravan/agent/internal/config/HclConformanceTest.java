package io.caravan.agent.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every conformance HCL file decodes, and each X.hcl yields exactly the configuration of its X.json
 * (config-slices.hcl and .json hold different content upstream; its pair is config-slices-alt.json).
 */
class HclConformanceTest {
    private static final Schema.Block ROOT = Schema.nomadAgent().root();

    static Stream<Path> hclFiles() throws Exception {
        try (Stream<Path> files = Files.walk(Conformance.agentConfigs())) {
            return files.filter(p -> p.toString().endsWith(".hcl")).sorted().toList().stream();
        }
    }

    @ParameterizedTest
    @MethodSource("hclFiles")
    void everyNomadHclConfigDecodes(Path file) throws Exception {
        ConfigLoader.read(file);
    }

    @ParameterizedTest
    @ValueSource(strings = {"basic", "obj-len-one", "plugin", "non-optional"})
    void hclAndJsonFormsAreTheSameConfiguration(String name) throws Exception {
        Path dir = Conformance.agentConfigs();
        assertEquals(ConfigLoader.read(dir.resolve(name + ".json")), ConfigLoader.read(dir.resolve(name + ".hcl")));
    }

    @Test
    void theAlternativeJsonSliceFormIsTheSameToo() throws Exception {
        Path dir = Conformance.agentConfigs();
        assertEquals(ConfigLoader.read(dir.resolve("config-slices.json")),
                ConfigLoader.read(dir.resolve("config-slices-alt.json")));
    }

    @Test
    void hcl1FormsMeanWhatNomadMeans(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("a.hcl");
        Files.writeString(file, """
                client "meta" {
                  "rack" = "r1"
                }
                client {
                  options {
                    driver.allowlist = "docker"
                  }
                  template = "${NOMAD_ALLOC_ID}"
                }
                advertise = {
                  rpc = "10.0.0.1"
                }
                """);
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.read(file));
        assertEquals(List.of(file + ":8:14: \"client.template\" must be a block, not a string"),
                e.problems().stream().map(Object::toString).toList());
        Files.writeString(file, Files.readString(file).replace("  template = \"${NOMAD_ALLOC_ID}\"\n",
                "  node_class = \"${NOMAD_ALLOC_ID}\"\n"));
        ConfigView c = new ConfigView(ConfigLoader.read(file));
        assertEquals(Map.of("rack", "r1"), c.map("client.meta"));
        assertEquals(Map.of("driver.allowlist", "docker"), c.map("client.options"));
        assertEquals("${NOMAD_ALLOC_ID}", c.string("client.node_class", null), "no interpolation in agent config");
        assertEquals("10.0.0.1", c.string("advertise.rpc", null));
    }

    @Test
    void hcl1OneLineBodiesRepeatsAndDottedKeysReadAsNomadReadsThem(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("a.hcl");
        Files.writeString(file, """
                ports { http = 4646, rpc = 4647 }
                region = "a"
                client {
                  enabled = true }
                region = "b"
                client { options = { driver.raw_exec.enable = "1", "docker.privileged.enabled" = "true" } }
                """);
        ConfigView c = new ConfigView(ConfigLoader.read(file));
        assertEquals(4646, c.integer("ports.http", 0));
        assertEquals(4647, c.integer("ports.rpc", 0));
        assertTrue(c.bool("client.enabled"));
        assertEquals("b", c.string("region", null), "a repeated attribute keeps its last value, as in HCL1");
        assertEquals(Map.of("driver.raw_exec.enable", "1", "docker.privileged.enabled", "true"),
                c.map("client.options"));
    }

    @Test
    void aFileThatIsNotUtf8IsAPositionedError(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("latin1.hcl");
        Files.write(file, "region = \"a\"\ndatacenter = \"K\u00f6ln\"\n".getBytes(StandardCharsets.ISO_8859_1));
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.read(file));
        assertEquals(List.of(file + ":2:16: Invalid character encoding; The file must be UTF-8 text, but the byte "
                + "0xF6 here does not belong to a UTF-8 character."), e.problems().stream().map(Object::toString)
                .toList());
    }

    @Test
    void syntaxErrorsNameTheirPosition(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("bad.hcl");
        Files.writeString(file, "region = \"a\"\nserver {\n  enabled = \n}\n");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.read(file));
        assertTrue(e.getMessage().startsWith(file + ":3:"), e.getMessage());
    }
}
