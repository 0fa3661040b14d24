package io.caravan.hcl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every {@code .hcl} file of Nomad v1.5.6's test fixtures ({@code shared/conformance/nomad-v1.5.6}) must parse
 * without a syntax error. Only syntax is checked here. No file is exempt: the jobspecs that Nomad's HCL1 parser
 * rejected ({@code hcl1-parse-errors.json}) are rejected for their meaning (bad ports, duplicate blocks...), and
 * are syntactically valid HCL2. Agent configurations are parsed with {@link HclParser.Options#HCL1_NAMES}, because
 * Nomad parses them with HCL1 and they use quoted and dotted names ({@code "key" = v}, {@code driver.allowlist}).
 */
class NomadFilesTest {

    static Path corpusDir() {
        return Corpus.dir("nomad.conformance.dir", "../../../shared/conformance/nomad-v1.5.6");
    }

    @TestFactory
    Stream<DynamicTest> everyNomadFileParses() throws IOException {
        Path dir = corpusDir();
        List<Path> files = Corpus.files(dir, ".hcl");
        assertTrue(files.size() >= 70, "expected the Nomad fixtures under " + dir + ", found " + files.size());
        return files.stream().map(f -> DynamicTest.dynamicTest(dir.relativize(f).toString(), () -> {
            boolean agentConfig = dir.relativize(f).startsWith("agent-config");
            HclParser.Result r = HclParser.tryParse(Files.readString(f, StandardCharsets.UTF_8),
                    dir.relativize(f).toString(), agentConfig ? HclParser.Options.HCL1_NAMES : HclParser.Options.STRICT);
            assertEquals(List.of(), r.diagnostics());
            assertTrue(!r.file().body().items().isEmpty(), "parsed to an empty body");
        }));
    }

    /** The HCL1-style names really are an extension: strict parsing rejects them with a located error. */
    @TestFactory
    Stream<DynamicTest> agentConfigsNeedHcl1Names() {
        return Stream.of("agent-config/basic.hcl", "agent-config/obj-len-one.hcl").map(name ->
                DynamicTest.dynamicTest(name, () -> {
                    Path f = corpusDir().resolve(name);
                    HclParser.Result r = HclParser.tryParse(Files.readString(f), name);
                    assertTrue(r.hasErrors());
                    assertTrue(r.diagnostics().get(0).toString().startsWith(name + ":"), r.diagnostics().toString());
                }));
    }
}
