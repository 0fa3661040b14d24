package io.caravan.jobspec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class JobspecParserTest {

    private static JsonNode job(String hcl) {
        return JobspecParser.parse(hcl, "job.nomad").job();
    }

    /** A task body wrapped in job/group/task; returns the task. */
    private static JsonNode task(String body) {
        return job("job \"j\" {\n group \"g\" {\n  task \"t\" {\n" + body + "\n  }\n }\n}").at("/TaskGroups/0/Tasks/0");
    }

    private static JobspecException error(String hcl) {
        return assertThrows(JobspecException.class, () -> JobspecParser.parse(hcl, "job.nomad"));
    }

    // ---- structure -------------------------------------------------------------------------------------------

    @Test
    void labelBecomesIdAndNameAndOnlyWrittenFieldsAppear() {
        JsonNode j = job("job \"web\" {\n  type = \"service\"\n  group \"app\" { count = 2 }\n}");
        assertEquals("{\"ID\":\"web\",\"Name\":\"web\",\"Type\":\"service\",\"TaskGroups\":[{\"Name\":\"app\","
                + "\"Count\":2}]}", j.toString());
        assertEquals("other", job("job \"web\" { name = \"other\" }").get("Name").asText());
        assertEquals("{\"Job\":{\"ID\":\"web\",\"Name\":\"web\"}}",
                JobspecParser.parse("job \"web\" {}", "j.hcl").toRegisterRequest().toString());
        assertEquals("web", JobspecParser.parse("job \"web\" {}", "j.hcl").id());
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
        "kill_timeout   | \"30s\"       | KillTimeout   | 30000000000",
        "kill_timeout   | \"1m30s\"     | KillTimeout   | 90000000000",
        "kill_timeout   | \"250ms\"     | KillTimeout   | 250000000",
        "shutdown_delay | \"1h\"        | ShutdownDelay | 3600000000000",
        "shutdown_delay | 5             | ShutdownDelay | 5",
    })
    void durationsBecomeNanoseconds(String hcl, String value, String json, long nanos) {
        assertEquals(nanos, task(hcl + " = " + value).get(json).asLong());
    }

    @Test
    void staticPortsAreReservedOthersDynamic() {
        JsonNode n = job("""
                job "j" {
                  group "g" {
                    network {
                      mode = "bridge"
                      port "http" { static = 8080 }
                      port "admin" { to = 9090 }
                      port "grpc" {
                        static       = 0
                        host_network = "private"
                      }
                      port "db" {
                        static = 5432
                        to     = -1
                      }
                    }
                  }
                }""").at("/TaskGroups/0/Networks/0");
        assertEquals("[{\"Label\":\"http\",\"Value\":8080,\"To\":0},{\"Label\":\"db\",\"Value\":5432,\"To\":-1}]",
                n.get("ReservedPorts").toString());
        assertEquals("[{\"Label\":\"admin\",\"Value\":0,\"To\":9090},"
                + "{\"Label\":\"grpc\",\"Value\":0,\"To\":0,\"HostNetwork\":\"private\"}]",
                n.get("DynamicPorts").toString());
    }

    @Test
    void theUnnamedIdentityIsTheDefaultOneAndNamedOnesAreAlternates() {
        JsonNode t = task("""
                identity {
                  env  = true
                  file = true
                }
                identity {
                  name          = "vault_default"
                  aud           = ["vault.io"]
                  ttl           = "1h"
                  change_mode   = "signal"
                  change_signal = "SIGHUP"
                  file          = true
                }""");
        assertEquals("{\"Env\":true,\"File\":true,\"Name\":\"default\"}", t.get("Identity").toString());
        assertEquals("[{\"Name\":\"vault_default\",\"Audience\":[\"vault.io\"],\"TTL\":3600000000000,"
                + "\"ChangeMode\":\"signal\",\"ChangeSignal\":\"SIGHUP\",\"File\":true}]",
                t.get("Identities").toString());
        assertTrue(task("identity { name = \"x\" }").path("Identity").isMissingNode());
    }

    @Test
    void freeFormMapsKeepTheUsersKeysAndAcceptAttributeForm() {
        JsonNode t = task("""
                config {
                  command = "/bin/app"
                  args    = ["-port", "${NOMAD_PORT_http}"]
                  mount { type = "bind" }
                  labels = { team = "a" }
                }
                env = { LOG_LEVEL = "debug", RETRIES = 3 }
                meta { my_Key = true }""");
        assertEquals("{\"command\":\"/bin/app\",\"args\":[\"-port\",\"${NOMAD_PORT_http}\"],"
                + "\"mount\":[{\"type\":\"bind\"}],\"labels\":[{\"team\":\"a\"}]}", t.get("Config").toString());
        assertEquals("{\"LOG_LEVEL\":\"debug\",\"RETRIES\":\"3\"}", t.get("Env").toString());
        assertEquals("{\"my_Key\":\"true\"}", t.get("Meta").toString());
    }

    @Test
    void templatesArtifactsLifecycleLogs() {
        JsonNode t = task("""
                template {
                  data        = "port={{ env \\"NOMAD_PORT_http\\" }}"
                  destination = "local/app.conf"
                  change_mode = "signal"
                  change_signal = "SIGHUP"
                }
                artifact {
                  source      = "https://example.com/app.tgz"
                  destination = "local/app"
                  options { checksum = "sha256:abc" }
                }
                lifecycle {
                  hook    = "prestart"
                  sidecar = false
                }
                logs {
                  max_files     = 3
                  max_file_size = 5
                }
                resources {
                  cpu    = 200
                  memory = 256
                }""");
        assertEquals("{\"EmbeddedTmpl\":\"port={{ env \\\"NOMAD_PORT_http\\\" }}\",\"DestPath\":\"local/app.conf\","
                + "\"ChangeMode\":\"signal\",\"ChangeSignal\":\"SIGHUP\",\"Perms\":\"0644\",\"Splay\":5000000000,"
                + "\"ErrMissingKey\":false}", t.at("/Templates/0").toString()); // Nomad's normalizeTemplates
        assertEquals("{\"GetterSource\":\"https://example.com/app.tgz\",\"RelativeDest\":\"local/app\","
                + "\"GetterOptions\":{\"checksum\":\"sha256:abc\"}}", t.at("/Artifacts/0").toString());
        assertEquals("{\"Hook\":\"prestart\",\"Sidecar\":false}", t.get("Lifecycle").toString());
        assertEquals("{\"MaxFiles\":3,\"MaxFileSizeMB\":5}", t.get("LogConfig").toString());
        assertEquals("{\"CPU\":200,\"MemoryMB\":256}", t.get("Resources").toString());
    }

    @Test
    void numericStringsAndBoolStringsConvertLikeHcl() {
        JsonNode t = task("leader = \"true\"\nresources { cpu = \"500\" }");
        assertTrue(t.get("Leader").asBoolean());
        assertEquals(500, t.at("/Resources/CPU").asInt());
    }

    @Test
    void dynamicBlocksExpand() {
        JsonNode n = job("""
                locals { ports = { http = 8080, admin = 0 } }
                job "j" {
                  group "g" {
                    network {
                      dynamic "port" {
                        for_each = local.ports
                        labels   = [port.key]
                        content { static = port.value }
                      }
                    }
                  }
                }""").at("/TaskGroups/0/Networks/0");
        assertEquals("[{\"Label\":\"http\",\"Value\":8080,\"To\":0}]", n.get("ReservedPorts").toString());
        assertEquals("[{\"Label\":\"admin\",\"Value\":0,\"To\":0}]", n.get("DynamicPorts").toString());
    }

    // ---- variables, locals, functions, deferral -----------------------------------------------------------------

    private static final String VARS = """
            variable "dc" {
              type    = string
              default = "dc1"
            }
            variable "count" {
              type    = number
              default = 1
            }
            variable "dcs" {
              type    = list(string)
              default = ["a"]
            }
            locals {
              name = "${local.prefix}-${var.dc}"
              prefix = upper("web")
            }
            job "j" {
              datacenters = concat([var.dc], var.dcs)
              meta { name = local.name }
              group "g" { count = var.count }
            }
            """;

    @Test
    void variableDefaultsAndLocalsInAnyOrder() {
        JsonNode j = job(VARS);
        assertEquals("[\"dc1\",\"a\"]", j.get("Datacenters").toString());
        assertEquals("WEB-dc1", j.at("/Meta/name").asText());
        assertEquals(1, j.at("/TaskGroups/0/Count").asInt());
    }

    @Test
    void cliVarsOverrideVarFilesWhichOverrideDefaults(@TempDir Path dir) throws Exception {
        Path vf = dir.resolve("prod.hcl");
        Files.writeString(vf, "dc = \"from-file\"\ncount = 3\n");
        JsonNode j = JobspecParser.parse(VARS, "job.nomad", Map.of("dc", "from-cli", "dcs", "[\"x\", \"y\"]"),
                List.of(vf)).job();
        assertEquals("[\"from-cli\",\"x\",\"y\"]", j.get("Datacenters").toString());
        assertEquals(3, j.at("/TaskGroups/0/Count").asInt());
        assertEquals("WEB-from-cli", j.at("/Meta/name").asText());
        assertEquals(5, JobspecParser.parse(VARS, "job.nomad", ParseOptions.defaults().withVar("count", "5"))
                .job().at("/TaskGroups/0/Count").asInt());
    }

    @Test
    void environmentHasTheLowestPrecedence(@TempDir Path dir) throws Exception {
        Map<String, String> env = Map.of("NOMAD_VAR_dc", "from-env", "NOMAD_VAR_count", "7", "NOMAD_VAR_undeclared",
                "ignored", "PATH", "/bin");
        JsonNode j = JobspecParser.parse(VARS, "job.nomad", ParseOptions.defaults().withEnv(env)).job();
        assertEquals("[\"from-env\",\"a\"]", j.get("Datacenters").toString());
        assertEquals(7, j.at("/TaskGroups/0/Count").asInt());
        Path vf = dir.resolve("v.hcl");
        Files.writeString(vf, "count = 3");
        j = JobspecParser.parse(VARS, "job.nomad", ParseOptions.defaults().withEnv(env).withVarFile(vf)).job();
        assertEquals(3, j.at("/TaskGroups/0/Count").asInt());
        assertEquals("[\"from-env\",\"a\"]", j.get("Datacenters").toString());
    }

    @Test
    void scalingPolicies() {
        JsonNode j = job("""
                job "j" {
                  group "g" {
                    scaling {
                      min = 1
                      max = 10
                      policy { cooldown = "1m" }
                    }
                    task "t" {
                      scaling "MEM" {
                        max = 2048
                      }
                    }
                  }
                }""");
        assertEquals("{\"Min\":1,\"Max\":10,\"Policy\":{\"cooldown\":\"1m\"},\"Type\":\"horizontal\"}",
                j.at("/TaskGroups/0/Scaling").toString());
        assertEquals("[{\"Type\":\"vertical_mem\",\"Max\":2048}]",
                j.at("/TaskGroups/0/Tasks/0/ScalingPolicies").toString());
    }

    @Test
    void variableProblems() {
        JobspecException e = assertThrows(JobspecException.class, () -> JobspecParser.parse(VARS, "job.nomad",
                ParseOptions.defaults().withVar("nope", "1").withVar("count", "many")));
        String m = e.getMessage();
        assertTrue(m.contains("Undefined -var variable; A \"nope\" variable was passed in"), m);
        assertTrue(m.contains("Invalid value for variable; The value for variable \"count\""), m);
        JobspecException unset = error("variable \"x\" {}\njob \"j\" { region = var.x }");
        assertEquals("job.nomad:1:1: Unset variable \"x\"; A used variable must be set or have a default value; see "
                + "https://developer.hashicorp.com/nomad/docs/job-specification/hcl2/variables for details.",
                unset.problems().get(0).toString());
    }

    @Test
    void validationBlocks() {
        JobspecException e = error("""
                variable "n" {
                  default = 0
                  validation {
                    condition     = var.n > 0
                    error_message = "n must be positive."
                  }
                }
                job "j" {}""");
        assertEquals("job.nomad:4:21: Invalid value for variable; n must be positive.",
                e.problems().get(0).toString());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "format(\"%s-%03d\", \"web\", 7)                  | web-007",
        "join(\",\", [\"a\", \"b\"])                     | a,b",
        "join(\"+\", split(\"/\", \"a/b/c\"))            | a+b+c",
        "lower(\"ABC\")                                 | abc",
        "trimspace(\"  x \")                            | x",
        "replace(\"a.b.c\", \".\", \"-\")               | a-b-c",
        "replace(\"v1.2.3\", \"/[0-9]/\", \"N\")         | vN.N.N",
        "lookup(merge({a = 1}, {b = 2}), \"b\", 0)      | 2",
        "lookup({a = 1}, \"z\", \"dflt\")               | dflt",
        "length(concat([1], [2, 3]))                    | 3",
        "join(\"\", keys({b = 1, a = 2}))               | ab",
        "join(\"\", values({b = \"x\", a = \"y\"}))     | yx",
        "element([\"a\", \"b\"], 3)                     | b",
        "contains([\"a\", \"b\"], \"b\")                | true",
        "jsonencode({a = [1, \"x\"]})                   | {\"a\":[1,\"x\"]}",
        "jsondecode(\"{\\\"k\\\": [true]}\").k[0]       | true",
        "tostring(12)                                   | 12",
        "tonumber(\"12\") + 1                           | 13",
        "coalesce(\"\", \"b\")                          | b",
        "abs(-4)                                        | 4",
        "min(3, 1, 2) + max(3, 1, 2)                    | 4",
    })
    void functions(String expr, String expected) {
        assertEquals(expected, job("job \"j\" {\n meta {\n  v = " + expr + "\n }\n}").at("/Meta/v").asText());
    }

    @Test
    void fileIsRelativeToTheJobspec(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("tmpl.ctmpl"), "hello {{ .x }}");
        Path spec = dir.resolve("job.nomad");
        Files.writeString(spec, "job \"j\" {\n group \"g\" {\n  task \"t\" {\n   template { data = file(\"tmpl.ctmpl\") }\n"
                + "  }\n }\n}");
        assertEquals("hello {{ .x }}", JobspecParser.parse(spec, ParseOptions.defaults())
                .job().at("/TaskGroups/0/Tasks/0/Templates/0/EmbeddedTmpl").asText());
        JobspecException off = assertThrows(JobspecException.class, () -> JobspecParser.parse(spec,
                ParseOptions.defaults().withFileFunctions(false)));
        assertTrue(off.getMessage().contains("filesystem function disabled"), off.getMessage());
    }

    @Test
    void runtimeInterpolationsAreKeptLiterally() {
        JsonNode j = job("""
                variable "rack" { default = "r1" }
                job "j" {
                  constraint {
                    attribute = "${attr.kernel.name}"
                    value     = "linux"
                  }
                  region = foo.bar
                  constraint {
                    attribute = node.unique.id
                    operator  = "!="
                    value     = "${meta.rack}-${var.rack}"
                  }
                  group "g" {
                    task "t" {
                      env {
                        ADDR = "${NOMAD_IP_http}:${NOMAD_PORT_http}"
                        HOME = "${env["HOME"]}/x"
                        HOST = "${node.unique.name}"
                      }
                    }
                  }
                }""");
        assertEquals("${attr.kernel.name}", j.at("/Constraints/0/LTarget").asText());
        assertEquals("${node.unique.id}", j.at("/Constraints/1/LTarget").asText());
        assertEquals("${foo.bar}", j.get("Region").asText()); // any unknown root is kept, as Nomad does
        assertEquals("${meta.rack}-r1", j.at("/Constraints/1/RTarget").asText());
        assertEquals("{\"ADDR\":\"${NOMAD_IP_http}:${NOMAD_PORT_http}\",\"HOME\":\"${env[\\\"HOME\\\"]}/x\","
                + "\"HOST\":\"${node.unique.name}\"}", j.at("/TaskGroups/0/Tasks/0/Env").toString());
    }

    // ---- errors: all of them, with positions ------------------------------------------------------------------

    @Test
    void unknownAttributesAndBlocksAreReportedTogetherWithPositions() {
        JobspecException e = error("""
                job "j" {
                  prioritty = 50
                  group "g" {
                    count = "many"
                    tasks "t" {}
                    task "t" {
                      config { anything_goes = 1 }
                      kill_timeout = "5 seconds"
                    }
                  }
                }""");
        assertEquals(List.of(
                "job.nomad:2:3: Unsupported argument; An argument named \"prioritty\" is not expected here. Did you "
                        + "mean \"priority\"?",
                "job.nomad:4:13: Incorrect attribute value type; Inappropriate value for attribute \"count\": a "
                        + "number is required.",
                "job.nomad:5:5: Unsupported block type; Blocks of type \"tasks\" are not expected here. Did you mean "
                        + "\"task\"?",
                "job.nomad:8:22: Unsuitable value type; Unsuitable duration value: time: unknown unit \" seconds\" "
                        + "in duration \"5 seconds\""),
                e.problems().stream().map(Problem::toString).toList());
        assertEquals(4, e.getMessage().lines().count());
        assertEquals(io.caravan.api.ErrorCode.BAD_REQUEST, e.code());
    }

    static Stream<Arguments> errorCases() {
        return Stream.of(
                Arguments.of("job \"j\" { datacenters = \"dc1\" }", "job.nomad:1:25: Incorrect attribute value type; "
                        + "Inappropriate value for attribute \"datacenters\": list of string required."),
                Arguments.of("job \"j\" { all_at_once = 3 }", "job.nomad:1:25: Incorrect attribute value type; "
                        + "Inappropriate value for attribute \"all_at_once\": bool required."),
                Arguments.of("job \"j\" { priority = 1.5 }", "job.nomad:1:22: Incorrect attribute value type; "
                        + "Inappropriate value for attribute \"priority\": a whole number is required."),
                Arguments.of("job \"j\" { region = nope(1) }", "job.nomad:1:20: Call to unknown function; "
                        + "There is no function named \"nope\"."),
                Arguments.of("variable \"x\" { default = 1 }\njob \"j\" { region = var.nope }",
                        "job.nomad:2:24: Unsupported attribute; This object does not have an attribute named \"nope\"."),
                Arguments.of("job \"j\" { kill_signal = true }", "job.nomad:1:11: Unsupported argument; An argument "
                        + "named \"kill_signal\" is not expected here."),
                Arguments.of("job \"j\" {\n group \"g\" {\n  scaling {\n   max  = 1\n   type = \"vertical_cpu\"\n  }\n }\n}",
                        "job.nomad:5:11: Invalid group scaling type; task group scaling policy had invalid type: "
                        + "\"vertical_cpu\""),
                Arguments.of("job \"j\" {\n task \"t\" {\n  scaling \"disk\" {\n   max = 1\n  }\n }\n}",
                        "job.nomad:3:11: Invalid scaling policy name; scaling policy name must be one of [cpu, mem]"),
                Arguments.of("job \"j\" {\n task \"t\" {\n  scaling \"cpu\" {}\n  scaling \"CPU\" {}\n }\n}",
                        "job.nomad:4:3: Duplicate scaling \"cpu\" block; Only one scaling cpu block is allowed. Another "
                        + "was defined at job.nomad:3:3."),
                Arguments.of("job \"j\" {\n update {}\n update {}\n}", "job.nomad:3:2: Duplicate update block; Only "
                        + "one update block is allowed. Another was defined at job.nomad:2:2."),
                Arguments.of("job \"j\" {\n group {}\n}", "job.nomad:2:2: Missing name for group; "
                        + "All group blocks must have 1 label(s)."),
                Arguments.of("job {}", "job.nomad:1:1: Missing name for job; All job blocks must have 1 label(s)."),
                Arguments.of("region = \"x\"", "job.nomad:1:1: Unsupported argument; An argument named \"region\" is "
                        + "not expected here; a jobspec holds job, variable and locals blocks."),
                Arguments.of("job \"a\" {}\njob \"b\" {}", "job.nomad:2:1: Duplicate job block; Only one block of type "
                        + "\"job\" is allowed. Previous definition was at job.nomad:1:1."),
                Arguments.of("variable \"v\" { default = 1 }", "job.nomad:1:1: Missing job block; A job block is required"),
                Arguments.of("job \"j\" { meta = \"x\" }", "job.nomad:1:18: Incorrect attribute value type; "
                        + "Inappropriate value for attribute \"meta\": an object is required."),
                Arguments.of("job \"j\" {\n group \"g\" {\n  scaling {\n   min = 1\n  }\n }\n}",
                        "job.nomad:3:11: Missing required argument; The argument \"max\" is required, but no "
                        + "definition was found."),
                Arguments.of("job \"j\" {\n group \"g\" {\n  dynamic \"task\" {\n   for_each = 3\n   content {}\n  }\n"
                        + " }\n}", "job.nomad:4:15: Invalid dynamic for_each value; Cannot use a number value in "
                        + "for_each."),
                Arguments.of("variable \"a\" { default = var.b }\nvariable \"b\" {default = 1}\njob \"j\" {}",
                        "job.nomad:1:26: Unknown variable; There is no variable named \"var\"."),
                Arguments.of("job \"j\" {\n meta {\n  v = element([], 1)\n }\n}", "job.nomad:3:7: Error in function "
                        + "call; Call to function \"element\" failed: cannot use element function with an empty list."),
                Arguments.of(" {\"job\": {\"web\": {}}}", "job.nomad:1:1: Unsupported jobspec syntax; HCL JSON syntax is not "
                        + "supported; write the jobspec in HCL native syntax, or send an API job ({\"Job\": {...}}) as JSON"),
                Arguments.of("job \"j\" {", "job.nomad:1:9: Unclosed configuration block; There is no closing brace "
                        + "for this block before the end of the file. This may be caused by incorrect brace nesting "
                        + "elsewhere in this file."));
    }

    @ParameterizedTest(name = "{index}: {1}")
    @MethodSource("errorCases")
    void errorPositions(String hcl, String expected) {
        JobspecException e = error(hcl);
        assertEquals(expected, e.problems().get(0).toString(), e.getMessage());
    }

    // ---- JSON ---------------------------------------------------------------------------------------------------

    @Test
    void jsonWrappedOrBare() {
        ObjectNode wrapped = JobspecParser.parseJson("{\"Job\": {\"ID\": \"web\", \"TaskGroups\": []}}");
        assertEquals("{\"ID\":\"web\",\"TaskGroups\":[]}", wrapped.toString());
        assertEquals("web", JobspecParser.parseJson("{\"Name\": \"web\"}").get("Name").asText());
        assertEquals("web", JobspecParser.parseJson("{\"job\": {\"id\": \"web\"}}").get("id").asText());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "[1, 2]                 | <json>: Invalid job; a JSON object is required, got ARRAY",
        "{\"Job\": {}}          | <json>: Invalid job; missing job ID or Name",
        "{\"Job\": 3}           | <json>: Invalid job; \"Job\" must be an object",
        "{\"ID\": \"x\",        | <json>:1:12: Invalid JSON; Unexpected end-of-input within/between Object entries",
    })
    void badJson(String json, String expected) {
        JobspecException e = assertThrows(JobspecException.class, () -> JobspecParser.parseJson(json));
        assertEquals(expected, e.getMessage());
    }
}
