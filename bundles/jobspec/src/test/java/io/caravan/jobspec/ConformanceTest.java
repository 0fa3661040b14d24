package io.caravan.jobspec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Nomad v1.5.6's own jobspec fixtures. jobspec2/ must all parse; jobspec/ (HCL1-era) must parse exactly when Nomad's
 * HCL1 parser accepted them ({@code hcl1-parse-errors.json}), apart from the documented divergences below.
 */
class ConformanceTest {

    private static JsonNode parse(Path file) {
        return JobspecParser.parse(file, ParseOptions.defaults()).job();
    }

    // ---- jobspec2: every file parses, with its key fields -----------------------------------------------------

    static Stream<Arguments> jobspec2() {
        Map<String, Consumer<JsonNode>> checks = Map.of(
                "config-compatibility.hcl", job -> {
                    JsonNode c = job.at("/TaskGroups/0/Tasks/0/Config");
                    assertEquals("b", c.get("attr_string").asText());
                    assertEquals(21474836470L, c.get("attr_large_int").asLong());
                    assertEquals(3.2, c.get("attr_float").asDouble());
                    assertEquals("[1,\"a\",3.4,{\"k\":\"v\"}]", c.get("attr_list_hetro").toString());
                    assertEquals("[]", c.get("attr_list_empty").toString());
                    // object literals become a list of one map, as in HCL1 (Nomad's BlocksAsAttrs)
                    assertEquals("[{\"KEY\":\"VAL\",\"KEY2\":\"VAL2\"}]", c.get("attr_map").toString());
                    assertEquals("[{}]", c.get("attr_map_empty").toString());
                    assertEquals("[{\"K\":\"V\"}]", c.at("/outer_block/0/l1/0/inner_block/0/l2/0/most_inner/0/l3/0"
                            + "/inner_map").toString());
                    assertEquals("[{\"k\":\"b\",\"key2\":\"v2\"}]", c.get("block1").toString());
                    assertEquals("[{\"label1\":[{\"label2\":[{\"label3\":[{\"k\":\"b\"}]}]}]}]",
                            c.get("multi_labeled_block").toString());
                    assertEquals("[{\"a\":2},{\"b\":3}]", c.get("repeated_block_type").toString());
                    assertEquals(5, c.get("label_repeated").size());
                    assertEquals(3, c.at("/outer_block/0/l1/0/inner_block/0/l2/0/most_inner/0/l3/0/level").asInt());
                },
                "connect-example.hcl", job -> {
                    assertEquals("[\"dc1\"]", job.get("Datacenters").toString());
                    JsonNode g = job.at("/TaskGroups/0");
                    assertEquals("bridge", g.at("/Networks/0/Mode").asText());
                    assertEquals("{\"Label\":\"http\",\"Value\":80,\"To\":8080}",
                            g.at("/Networks/0/ReservedPorts/0").toString());
                    assertEquals("8080", g.at("/Services/0/PortLabel").asText());
                    JsonNode up = g.at("/Services/0/Connect/SidecarService/Proxy/Upstreams/0");
                    assertEquals("database", up.get("DestinationName").asText());
                    assertEquals(5432, up.get("LocalBindPort").asInt());
                    assertEquals("{\"connect_timeout_ms\":9999}", up.get("Config").toString());
                    assertEquals("http://${NOMAD_UPSTREAM_ADDR_database}",
                            g.at("/Tasks/0/Env/COUNTING_SERVICE_URL").asText());
                    assertTrue(g.at("/Tasks/0/Config/auth_soft_fail").asBoolean());
                },
                "template-err-missing-key.hcl", job ->
                        assertTrue(job.at("/TaskGroups/0/Tasks/0/Templates/0/ErrMissingKey").asBoolean()),
                "template-wait-config.hcl", job -> {
                    assertEquals(5_000_000_000L, job.at("/TaskGroups/0/Tasks/0/Templates/0/Wait/Min").asLong());
                    assertEquals(60_000_000_000L, job.at("/TaskGroups/0/Tasks/0/Templates/0/Wait/Max").asLong());
                });
        Path dir = Corpus.dir("jobspec2/test-fixtures");
        return listHcl(dir).stream().map(name -> Arguments.of(name, dir.resolve(name),
                checks.getOrDefault(name, job -> fail("no field checks for new fixture " + name))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jobspec2")
    void jobspec2FixturesParse(String name, Path file, Consumer<JsonNode> check) {
        JsonNode job = parse(file);
        assertEquals("ID", job.fieldNames().next());
        check.accept(job);
    }

    // ---- jobspec (HCL1 era): accept exactly what Nomad accepted --------------------------------------------------

    /**
     * Where our answer differs from HCL1's, and why. Not listed in hcl1-parse-errors.json: basic_wrong_key.hcl is
     * Nomad's "unknown key" fixture (rejected); the port and service fixtures are rejected later, by validation.
     */
    private static final Map<String, Boolean> NOT_IN_HCL1_LIST = Map.of(
            "basic_wrong_key.hcl", true, "bad-ports.hcl", false, "overlapping-ports.hcl", false,
            "parse-ports.hcl", false, "tg-network-with-hostname.hcl", false, "incorrect-service-def.hcl", false);
    /** HCL2 converts 840 to "840" for a list(string) header value; HCL1 refused the number. */
    private static final Set<String> HCL2_ACCEPTS = Set.of("service-check-bad-header-2.hcl");

    @Test
    void jobspecFixturesMatchNomad() throws Exception {
        Path dir = Corpus.dir("jobspec/test-fixtures");
        JsonNode hcl1 = new ObjectMapper().readTree(Corpus.dir("jobspec").resolve("hcl1-parse-errors.json").toFile());
        Map<String, String> failures = new TreeMap<>();
        Set<String> mismatches = new TreeSet<>();
        int parsed = 0;
        TreeSet<String> names = listHcl(dir);
        for (String name : names) {
            boolean shouldFail = hcl1.has(name) ? hcl1.get(name).asText().equals("true") : NOT_IN_HCL1_LIST
                    .getOrDefault(name, false);
            if (HCL2_ACCEPTS.contains(name)) {
                shouldFail = false;
            }
            boolean failed;
            try {
                parse(dir.resolve(name));
                parsed++;
                failed = false;
            } catch (JobspecException e) {
                failures.put(name, e.problems().get(0).message());
                failed = true;
            }
            if (failed != shouldFail) {
                mismatches.add(name + (failed ? " rejected: " + failures.get(name) : " accepted"));
            }
        }
        System.out.printf("jobspec conformance: %d/%d parse; rejected:%n", parsed, names.size());
        failures.forEach((n, m) -> System.out.println("  " + n + ": " + m));
        assertTrue(mismatches.isEmpty(), "differs from Nomad: " + mismatches);
        assertEquals(names.size() - 15, parsed);
    }

    /** The richest fixture, field by field against what the file says. */
    @Test
    void basicHcl() {
        JsonNode job = parse(Corpus.dir("jobspec/test-fixtures").resolve("basic.hcl"));
        assertEquals("binstore-storagelocker", job.get("ID").asText());
        assertEquals("binstore-storagelocker", job.get("Name").asText());
        assertEquals("fooregion", job.get("Region").asText());
        assertEquals("foonamespace", job.get("Namespace").asText());
        assertEquals("batch", job.get("Type").asText());
        assertEquals(52, job.get("Priority").asInt());
        assertTrue(job.get("AllAtOnce").asBoolean());
        assertEquals("[\"us2\",\"eu1\"]", job.get("Datacenters").toString());
        assertEquals("abc", job.get("ConsulToken").asText());
        assertEquals("{\"foo\":\"bar\"}", job.get("Meta").toString());
        // Nomad's parser writes the default operator
        assertEquals("{\"LTarget\":\"kernel.os\",\"RTarget\":\"windows\",\"Operand\":\"=\"}",
                job.at("/Constraints/0").toString());
        assertEquals("{\"LTarget\":\"${attr.vault.version}\",\"RTarget\":\">= 0.6.1\",\"Operand\":\"semver\"}",
                job.at("/Constraints/1").toString());
        assertEquals(50, job.at("/Affinities/0/Weight").asInt());
        assertEquals("${meta.rack}", job.at("/Spreads/0/Attribute").asText());
        assertEquals("[{\"Value\":\"r1\",\"Percent\":40},{\"Value\":\"r2\",\"Percent\":60}]",
                job.at("/Spreads/0/SpreadTarget").toString());
        assertEquals(60_000_000_000L, job.at("/Update/Stagger").asLong());
        assertEquals(600_000_000_000L, job.at("/Update/HealthyDeadline").asLong());
        assertEquals(1, job.at("/Update/Canary").asInt());

        // the job-level task becomes a group of its own, first
        assertEquals("outside", job.at("/TaskGroups/0/Name").asText());
        assertEquals("java", job.at("/TaskGroups/0/Tasks/0/Driver").asText());
        assertEquals("foobar", job.at("/TaskGroups/0/Tasks/0/Meta/my-cool-key").asText());

        JsonNode g = job.at("/TaskGroups/1");
        assertEquals("binsl", g.get("Name").asText());
        assertEquals(5, g.get("Count").asInt());
        assertEquals("{\"Name\":\"foo\",\"Type\":\"host\",\"Source\":\"/path\"}", g.at("/Volumes/foo").toString());
        assertEquals("ext4", g.at("/Volumes/bar/MountOptions/FSType").asText());
        assertTrue(g.at("/Volumes/baz/PerAlloc").asBoolean());
        assertEquals("{\"Attempts\":5,\"Interval\":600000000000,\"Delay\":15000000000,\"Mode\":\"delay\"}",
                g.get("RestartPolicy").toString());
        assertEquals("{\"Attempts\":5,\"Interval\":43200000000000}", g.get("ReschedulePolicy").toString());
        assertEquals("{\"Sticky\":true,\"SizeMB\":150}", g.get("EphemeralDisk").toString());
        assertEquals(1_000_000_000L, g.at("/Update/MinHealthyTime").asLong());
        assertEquals("task_states", g.at("/Migrate/HealthCheck").asText());
        assertEquals(120_000_000_000L, g.get("StopAfterClientDisconnect").asLong());
        assertEquals(432_000_000_000_000L, g.get("MaxClientDisconnect").asLong());
        assertEquals("{\"LTarget\":\"kernel.os\",\"RTarget\":\"linux\",\"Operand\":\"=\"}",
                g.at("/Constraints/0").toString());
        assertEquals("{\"elb_mode\":\"tcp\",\"elb_interval\":\"10\",\"elb_checks\":\"3\"}", g.get("Meta").toString());

        JsonNode t = g.at("/Tasks/0");
        assertEquals("binstore", t.get("Name").asText());
        assertEquals("docker", t.get("Driver").asText());
        assertEquals("bob", t.get("User").asText());
        assertTrue(t.get("Leader").asBoolean());
        assertEquals("{\"image\":\"hashicorp/binstore\",\"labels\":[{\"FOO\":\"bar\"}]}", t.get("Config").toString());
        assertEquals("{\"HELLO\":\"world\",\"LOREM\":\"ipsum\"}", t.get("Env").toString());
        assertEquals(22_000_000_000L, t.get("KillTimeout").asLong());
        assertEquals(11_000_000_000L, t.get("ShutdownDelay").asLong());
        assertEquals("{\"Attempts\":10}", t.get("RestartPolicy").toString());
        assertEquals("{\"Disabled\":false,\"MaxFiles\":14,\"MaxFileSizeMB\":101}", t.get("LogConfig").toString());
        assertEquals("[{\"Volume\":\"foo\",\"Destination\":\"/mnt/foo\"}]", t.get("VolumeMounts").toString());
        assertEquals("set_contains", t.at("/Affinities/0/Operand").asText());

        JsonNode r = t.get("Resources");
        assertEquals(500, r.get("CPU").asInt());
        assertEquals(128, r.get("MemoryMB").asInt());
        assertEquals(256, r.get("MemoryMaxMB").asInt());
        assertEquals(100, r.at("/Networks/0/MBits").asInt());
        assertEquals("[{\"Label\":\"one\",\"Value\":1,\"To\":0},{\"Label\":\"two\",\"Value\":2,\"To\":0},"
                + "{\"Label\":\"three\",\"Value\":3,\"To\":0}]", r.at("/Networks/0/ReservedPorts").toString());
        assertEquals(3, r.at("/Networks/0/DynamicPorts").size());
        assertEquals("admin", r.at("/Networks/0/DynamicPorts/2/Label").asText());
        assertEquals("nvidia/gpu", r.at("/Devices/0/Name").asText());
        assertEquals(10, r.at("/Devices/0/Count").asInt());
        assertEquals("{\"LTarget\":\"${device.attr.memory}\",\"RTarget\":\"2GB\",\"Operand\":\">\"}",
                r.at("/Devices/0/Constraints/0").toString());
        assertEquals("{\"Name\":\"intel/gpu\"}", r.at("/Devices/1").toString());

        JsonNode s = t.at("/Services/0");
        assertEquals("http", s.get("PortLabel").asText());
        assertEquals("[\"foo\",\"bar\"]", s.get("Tags").toString());
        assertEquals("[\"canary\",\"bam\"]", s.get("CanaryTags").toString());
        assertEquals("{\"abc\":\"123\"}", s.get("Meta").toString());
        assertEquals("{\"canary\":\"boom\"}", s.get("CanaryMeta").toString());
        JsonNode c = s.at("/Checks/0");
        assertEquals("check-name", c.get("Name").asText());
        assertEquals("tcp", c.get("Type").asText());
        assertEquals("admin", c.get("PortLabel").asText());
        assertEquals(10_000_000_000L, c.get("Interval").asLong());
        assertEquals(2_000_000_000L, c.get("Timeout").asLong());
        assertEquals("foo.Bar", c.get("GRPCService").asText());
        assertTrue(c.get("GRPCUseTLS").asBoolean());
        assertEquals("{\"Limit\":3,\"Grace\":10000000000,\"IgnoreWarnings\":true}", c.get("CheckRestart").toString());

        assertEquals("{\"GetterSource\":\"http://foo.com/artifact\",\"GetterOptions\":"
                + "{\"checksum\":\"md5:b8a4f3f72ecab0510a6a31e997461c5f\"}}", t.at("/Artifacts/0").toString());
        assertEquals("test/foo/", t.at("/Artifacts/1/RelativeDest").asText());
        assertEquals("file", t.at("/Artifacts/1/GetterMode").asText());
        // Nomad's normalizeVault fills Env and ChangeMode in
        assertEquals("{\"Namespace\":\"ns1\",\"Policies\":[\"foo\",\"bar\"],\"Env\":true,\"ChangeMode\":\"restart\"}",
                t.get("Vault").toString());

        JsonNode t0 = t.at("/Templates/0");
        assertEquals("foo", t0.get("SourcePath").asText());
        assertEquals("foo", t0.get("DestPath").asText());
        assertEquals(10_000_000_000L, t0.get("Splay").asLong());
        assertTrue(t0.get("Envvars").asBoolean());
        assertEquals(33_000_000_000L, t0.get("VaultGrace").asLong());
        assertTrue(t0.get("ErrMissingKey").asBoolean());
        JsonNode t1 = t.at("/Templates/1");
        assertEquals("script", t1.get("ChangeMode").asText());
        assertEquals("{\"Command\":\"/bin/foo\",\"Args\":[\"-debug\",\"-verbose\"],\"Timeout\":5000000000,"
                + "\"FailOnError\":false}", t1.get("ChangeScript").toString());
        assertEquals("777", t1.get("Perms").asText());
        assertEquals(1001, t1.get("Uid").asInt());
        assertEquals("--", t1.get("LeftDelim").asText());
        assertEquals("__", t1.get("RightDelim").asText());

        JsonNode sl = g.at("/Tasks/1");
        assertEquals("storagelocker", sl.get("Name").asText());
        assertEquals("{\"Hook\":\"prestart\",\"Sidecar\":true}", sl.get("Lifecycle").toString());
        assertEquals("{\"Policies\":[\"foo\",\"bar\"],\"Env\":false,\"ChangeMode\":\"signal\","
                + "\"ChangeSignal\":\"SIGUSR1\"}", sl.get("Vault").toString());
        assertEquals("kernel.arch", sl.at("/Constraints/0/LTarget").asText());
    }

    /** Other fixtures exercising structural conversions. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("structural")
    void structuralConversions(String file, String pointer, String json) {
        JsonNode job = parse(Corpus.dir("jobspec/test-fixtures").resolve(file));
        assertEquals(json, job.at(pointer).toString(), file + " " + pointer);
    }

    static Stream<Arguments> structural() {
        return Stream.of(
                Arguments.of("periodic-cron.hcl", "/Periodic", "{\"Spec\":\"*/5 * * *\",\"ProhibitOverlap\":true,"
                        + "\"TimeZone\":\"Europe/Minsk\",\"SpecType\":\"cron\"}"),
                Arguments.of("parameterized_job.hcl", "/ParameterizedJob", "{\"Payload\":\"required\","
                        + "\"MetaRequired\":[\"foo\",\"bar\"],\"MetaOptional\":[\"baz\",\"bam\"]}"),
                Arguments.of("parameterized_job.hcl", "/TaskGroups/0/Tasks/0/DispatchPayload", "{\"File\":\"foo/bar\"}"),
                Arguments.of("distinctHosts-constraint.hcl", "/Constraints",
                        "[{\"Operand\":\"distinct_hosts\"}]"),
                Arguments.of("distinctProperty-constraint.hcl", "/Constraints",
                        "[{\"Operand\":\"distinct_property\",\"LTarget\":\"${meta.rack}\"}]"),
                Arguments.of("version-constraint.hcl", "/Constraints",
                        "[{\"LTarget\":\"$attr.kernel.version\",\"Operand\":\"version\",\"RTarget\":\"~> 3.2\"}]"),
                Arguments.of("parse-ports.hcl", "/TaskGroups/0/Networks/0",
                        "{\"ReservedPorts\":[{\"Label\":\"static\",\"Value\":9000,\"To\":0}],"
                                + "\"DynamicPorts\":[{\"Label\":\"dynamic\",\"Value\":0,\"To\":0}]}"),
                Arguments.of("artifacts.hcl", "/TaskGroups/0/Tasks/0/Artifacts/3/GetterHeaders",
                        "{\"User-Agent\":\"nomad\",\"X-Nomad-Alloc\":\"alloc\"}"),
                Arguments.of("task-nested-config.hcl", "/TaskGroups/0/Tasks/0/Config",
                        "{\"image\":\"hashicorp/image\",\"port_map\":[{\"db\":1234}]}"),
                Arguments.of("multiregion.hcl", "/Multiregion/Regions/1",
                        "{\"Name\":\"east\",\"Count\":1,\"Datacenters\":[\"east-1\",\"east-2\"],"
                                + "\"Meta\":{\"region_code\":\"E\"}}"),
                Arguments.of("vault_inheritance.hcl", "/TaskGroups/1/Tasks/0/Vault",
                        "{\"Policies\":[\"job\"],\"Env\":true,\"ChangeMode\":\"restart\"}"),
                Arguments.of("vault_inheritance.hcl", "/TaskGroups/0/Tasks/0/Vault",
                        "{\"Policies\":[\"group\"],\"Env\":true,\"ChangeMode\":\"restart\"}"),
                Arguments.of("vault_inheritance.hcl", "/TaskGroups/0/Tasks/1/Vault",
                        "{\"Policies\":[\"task\"],\"Env\":false,\"ChangeMode\":\"restart\"}"),
                Arguments.of("tg-scaling-policy-minimal.hcl", "/TaskGroups/0/Scaling",
                        "{\"Max\":10,\"Type\":\"horizontal\"}"),
                Arguments.of("tg-service-connect-gateway-ingress.hcl",
                        "/TaskGroups/0/Services/0/Connect/Gateway/Proxy/EnvoyGatewayBindAddresses",
                        "{\"listener1\":{\"Address\":\"10.0.0.1\",\"Port\":8888},"
                                + "\"listener2\":{\"Address\":\"10.0.0.2\",\"Port\":8889}}"),
                Arguments.of("tg-service-connect-gateway-ingress.hcl",
                        "/TaskGroups/0/Services/0/Connect/Gateway/Ingress/Listeners/0/Services/0/Hosts",
                        "[\"127.0.0.1:8001\",\"[::1]:8001\"]"),
                Arguments.of("task-scaling-policy.hcl", "/TaskGroups/0/Tasks/0/ScalingPolicies/0/Type",
                        "\"vertical_cpu\""));
    }

    private static TreeSet<String> listHcl(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            TreeSet<String> names = new TreeSet<>();
            s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".hcl")).forEach(names::add);
            assertFalse(names.isEmpty(), "no .hcl files in " + dir);
            return names;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
