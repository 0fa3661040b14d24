package io.caravan.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.Capability;
import io.caravan.api.acl.Scope;

class AclPoliciesParseTest {

    private static final Set<String> READ = Set.of("list-jobs", "parse-job", "read-job", "csi-list-volume",
            "csi-read-volume", "read-job-scaling", "list-scaling-policies", "read-scaling-policy", "host-volume-read");
    private static final Set<String> WRITE = union(READ, Set.of("scale-job", "submit-job", "dispatch-job",
            "read-logs", "read-fs", "alloc-exec", "alloc-lifecycle", "csi-mount-volume", "csi-write-volume",
            "submit-recommendation", "host-volume-create"));
    private static final Set<String> SCALE = Set.of("list-scaling-policies", "read-scaling-policy",
            "read-job-scaling", "scale-job", "read-job", "submit-recommendation");

    /** The example at the top of Nomad's ACL policy specification. */
    private static final String SPEC_EXAMPLE = """
            # a namespace rule for the "foo" namespace
            namespace "foo" {
              policy = "write"              # a policy field
              capabilities = ["alloc-exec"] # a capabilities list
              variables {
                path "project/*" {
                  capabilities = ["read", "write"]
                }
              }
            }
            namespace "*" {
              policy = "read"
            }
            node {
              policy = "read"
            }
            agent {
              policy = "read"
            }
            operator {
              policy = "read"
            }
            quota {
              policy = "read"
            }
            host_volume "*" {
              policy = "read"
            }
            plugin {
              policy = "read"
            }
            """;

    private static final PolicyRules SPEC_RULES = new PolicyRules(
            List.of(new PolicyRules.Namespace("foo", "write", union(WRITE, Set.of("alloc-exec")),
                            List.of(new PolicyRules.VariablePath("project/*", Set.of("read", "write", "list")))),
                    new PolicyRules.Namespace("*", "read", READ, List.of())),
            List.of(new PolicyRules.HostVolume("*", "read", Set.of("mount-readonly"))),
            Map.of(Scope.NODE, Access.READ, Scope.AGENT, Access.READ, Scope.OPERATOR, Access.READ,
                    Scope.QUOTA, Access.READ, Scope.PLUGIN, Access.READ));

    @Test
    void specificationExampleInHcl() {
        assertEquals(SPEC_RULES, AclPolicies.parse(SPEC_EXAMPLE));
    }

    @Test
    void specificationExampleInJsonWithListsAndTrailingCommas() {
        String json = """
                {
                  "namespace": [
                    {"foo": {
                      "policy": "write",
                      "capabilities": ["alloc-exec"],
                      "variables": [{"path": [{"project/*": {"capabilities": ["read", "write"]}}]}],
                    }},
                    {"*": {"policy": "read"}},
                  ],
                  "node": {"policy": "read"},
                  "agent": {"policy": "read"},
                  "operator": [{"policy": "read"}],
                  "quota": {"policy": "read"},
                  "host_volume": {"*": [{"policy": "read"}]},
                  "plugin": {"policy": "read"}
                }
                """;
        assertEquals(SPEC_RULES, AclPolicies.parse(json));
    }

    @Test
    void jsonObjectOfNamesIsSeveralRules() {
        PolicyRules rules = AclPolicies.parse("""
                  {"namespace": {"default": {"policy": "read"}, "ops": {"capabilities": ["read-logs"]}}}""");
        assertEquals(List.of(new PolicyRules.Namespace("default", "read", READ, List.of()),
                new PolicyRules.Namespace("ops", "", Set.of("read-logs"), List.of())), rules.namespaces());
    }

    @Test
    void hcl1StyleItemsOnOneLine() {
        PolicyRules rules = AclPolicies.parse("""
                namespace "default" { policy = "read"  capabilities = ["submit-job"] }
                "agent" { "policy" = "write" }
                """);
        assertEquals(union(READ, Set.of("submit-job")), rules.namespaces().get(0).capabilities());
        assertEquals(Map.of(Scope.AGENT, Access.WRITE), rules.scopes());
    }

    static Stream<Arguments> expansions() {
        return Stream.of(
                Arguments.of("namespace \"a\" { policy = \"read\" }", READ),
                Arguments.of("namespace \"a\" { policy = \"write\" }", WRITE),
                Arguments.of("namespace \"a\" { policy = \"scale\" }", SCALE),
                Arguments.of("namespace \"a\" { policy = \"deny\" }", Set.of("deny")),
                // deny among capabilities leaves only deny
                Arguments.of("namespace \"a\" {\n policy = \"write\"\n capabilities = [\"deny\", \"read-logs\"]\n}",
                        Set.of("deny")),
                Arguments.of("namespace \"a\" { capabilities = [] }", Set.of()),
                Arguments.of("namespace \"a\" {}", Set.of()),
                // host volume capabilities imply the weaker ones
                Arguments.of("namespace \"a\" { capabilities = [\"host-volume-write\"] }",
                        Set.of("host-volume-write", "host-volume-register", "host-volume-create",
                                "host-volume-delete", "host-volume-read")),
                Arguments.of("namespace \"a\" { capabilities = [\"host-volume-register\"] }",
                        Set.of("host-volume-register", "host-volume-create", "host-volume-read")),
                Arguments.of("namespace \"a\" { capabilities = [\"host-volume-create\"] }",
                        Set.of("host-volume-create", "host-volume-read")));
    }

    @ParameterizedTest
    @MethodSource("expansions")
    void namespacePolicyExpansion(String policy, Set<String> capabilities) {
        assertEquals(capabilities, AclPolicies.parse(policy).namespaces().get(0).capabilities());
    }

    static Stream<Arguments> variableExpansions() {
        return Stream.of(
                Arguments.of("[\"write\"]", Set.of("write")),
                Arguments.of("[\"read\"]", Set.of("read", "list")),
                Arguments.of("[\"read\", \"list\", \"destroy\"]", Set.of("read", "list", "destroy")),
                Arguments.of("[\"read\", \"deny\"]", Set.of("deny")),
                Arguments.of("[]", Set.of()));
    }

    @ParameterizedTest
    @MethodSource("variableExpansions")
    void variablesReadImpliesListAndDenyWins(String capabilities, Set<String> expected) {
        PolicyRules rules = AclPolicies.parse("namespace \"apps\" {\n  variables {\n    path \"nomad/jobs/*\" {\n"
                + "      capabilities = " + capabilities + "\n    }\n  }\n}\n");
        assertEquals(List.of(new PolicyRules.VariablePath("nomad/jobs/*", expected)),
                rules.namespaces().get(0).variables());
    }

    @Test
    void hostVolumePolicies() {
        PolicyRules rules = AclPolicies.parse("""
                host_volume "production-tls-*" { capabilities = ["mount-readonly"] }
                host_volume "staging-tls-*" { policy = "write" }
                host_volume "scratch" { policy = "deny" }
                """);
        assertEquals(List.of(new PolicyRules.HostVolume("production-tls-*", "", Set.of("mount-readonly")),
                new PolicyRules.HostVolume("staging-tls-*", "write", Set.of("mount-readonly", "mount-readwrite")),
                new PolicyRules.HostVolume("scratch", "deny", Set.of("deny"))), rules.hostVolumes());
    }

    @Test
    void pluginLevels() {
        for (String level : List.of("deny", "list", "read", "write")) {
            assertEquals(Map.of(Scope.PLUGIN, Access.valueOf(level.toUpperCase())),
                    AclPolicies.parse("plugin { policy = \"" + level + "\" }").scopes());
        }
    }

    @Test
    void everyNamespaceCapabilityIsAccepted() {
        for (String capability : Capability.ALL) {
            PolicyRules rules = AclPolicies.parse("namespace \"default\" { capabilities = [\"" + capability
                    + "\"] }");
            assertEquals(true, rules.namespaces().get(0).capabilities().contains(capability), capability);
        }
    }

    @Test
    void rulesAreImmutable() {
        PolicyRules rules = AclPolicies.parse(SPEC_EXAMPLE);
        assertThrows(UnsupportedOperationException.class, () -> rules.namespaces().clear());
        assertThrows(UnsupportedOperationException.class, () -> rules.namespaces().get(0).capabilities().clear());
        assertThrows(UnsupportedOperationException.class, () -> rules.scopes().clear());
    }

    static Stream<Arguments> errors() {
        return Stream.of(
                Arguments.of("", "the policy is empty: it needs at least one rule"),
                Arguments.of("  \n# just a comment\n", "the policy is empty: it needs at least one rule"),
                Arguments.of("{}", "1:1: the policy is empty: it needs at least one rule"),
                Arguments.of("namespace \"default\" {\n  policy = \"read\"\n  capabilities = [\"list-jobs\",\n"
                                + "    \"reed-job\"]\n}",
                        "4:5: unknown capability \"reed-job\" in namespace \"default\""),
                Arguments.of("namespace \"default\" {\n  policy = \"foo\"\n}",
                        "2:12: invalid policy \"foo\" in namespace \"default\"; expected one of deny, read, write,"
                                + " scale"),
                Arguments.of("namespace {\n  policy = \"read\"\n}",
                        "1:1: namespace block needs one label, the name or a glob: namespace \"<name>\" { }"),
                Arguments.of("namespace \"has a space\" {\n  policy = \"read\"\n}",
                        "1:11: invalid namespace name \"has a space\": use 1 to 128 letters, digits, '-' or the"
                                + " wildcard '*'"),
                Arguments.of("{\"namespace\": [{\"\": {\"policy\": \"read\"}}]}",
                        "1:17: invalid namespace name \"\": use 1 to 128 letters, digits, '-' or the wildcard '*'"),
                Arguments.of("namespace \"default\" {\n  polcy = \"read\"\n}",
                        "2:3: unknown attribute or block \"polcy\" in namespace \"default\"; expected policy,"
                                + " capabilities or variables"),
                Arguments.of("namespace \"default\" {\n  capabilities = [\"register-job\"]\n}",
                        "2:19: capability \"register-job\" in namespace \"default\" is not supported yet; grant the"
                                + " coarser one (such as submit-job) instead"),
                Arguments.of("namespace \"default\" {\n  capabilities = \"read-job\"\n}",
                        "2:18: capabilities in namespace \"default\" must be a list of strings, not a string"),
                Arguments.of("namespace \"default\" {\n  policy = [\"read\"]\n}",
                        "2:12: policy in namespace \"default\" must be a string, not a list"),
                Arguments.of("namespace \"dev\" {\n  variables {\n  }\n}",
                        "2:3: the variables block of namespace \"dev\" has no path blocks"),
                Arguments.of("namespace \"dev\" {\n  variables \"*\" {\n    capabilities = [\"read\"]\n  }\n}",
                        "2:3: variables block takes no label"),
                Arguments.of("namespace \"dev\" {\n  variables {\n    path \"/nomad/job\" {\n"
                                + "      capabilities = [\"read\"]\n    }\n  }\n}",
                        "3:10: variables path \"/nomad/job\" in namespace \"dev\" must not start with '/'"),
                Arguments.of("namespace \"dev\" {\n  variables {\n    path \"a/*\" {\n"
                                + "      capabilities = [\"read\", \"wrte\"]\n    }\n  }\n}",
                        "4:31: unknown variables capability \"wrte\" in path \"a/*\" in namespace \"dev\"; expected"
                                + " one of deny, read, write, list, destroy"),
                Arguments.of("agent {\n  policy = \"foo\"\n}",
                        "2:12: invalid policy \"foo\" in agent; expected one of deny, read, write"),
                Arguments.of("node {\n  policy = \"scale\"\n}",
                        "2:12: invalid policy \"scale\" in node; expected one of deny, read, write"),
                Arguments.of("plugin {\n  policy = \"scale\"\n}",
                        "2:12: invalid policy \"scale\" in plugin; expected one of deny, list, read, write"),
                Arguments.of("quota {\n}", "1:1: quota block needs a policy: one of deny, read, write"),
                Arguments.of("node {\n  policy = \"read\"\n}\nnode {\n  policy = \"write\"\n}",
                        "4:1: duplicate node block"),
                Arguments.of("node \"x\" {\n  policy = \"read\"\n}", "1:1: node block takes no label"),
                Arguments.of("operator {\n  policy = \"read\"\n  capabilities = [\"snapshot-save\"]\n}",
                        "3:3: operator capabilities are not supported yet; use policy = \"read\" or \"write\""),
                Arguments.of("host_volume \"ssd\" {\n  policy = \"mount\"\n}",
                        "2:12: invalid policy \"mount\" in host_volume \"ssd\"; expected one of deny, read, write"),
                Arguments.of("host_volume \"ssd\" {\n  capabilities = [\"mount\"]\n}",
                        "2:19: unknown capability \"mount\" in host_volume \"ssd\"; expected one of deny,"
                                + " mount-readonly, mount-readwrite"),
                Arguments.of("node_pool \"prod\" {\n  capabilities = [\"drain\"]\n}",
                        "2:19: unknown capability \"drain\" in node_pool \"prod\"; expected one of deny, delete,"
                                + " read, write"),
                Arguments.of("namespaces \"default\" {\n  policy = \"read\"\n}",
                        "1:1: unknown block \"namespaces\"; expected namespace, host_volume, node_pool, node, agent,"
                                + " operator, quota or plugin"),
                Arguments.of("policy = \"read\"", "1:1: unknown block \"policy\"; expected namespace, host_volume,"
                        + " node_pool, node, agent, operator, quota or plugin"),
                // a policy object pasted instead of its rules (Nomad's own test case)
                Arguments.of("{\n  \"Name\": \"my-policy\",\n  \"Rules\": \"anything\"\n}",
                        "2:3: unknown block \"Name\"; expected namespace, host_volume, node_pool, node, agent,"
                                + " operator, quota or plugin"),
                Arguments.of("namespace \"default\" {\n  policy = \"read\"\n", "1:21: Unclosed configuration block;"
                        + " There is no closing brace for this block before the end of the file. This may be caused"
                        + " by incorrect brace nesting elsewhere in this file."),
                Arguments.of("{\"namespace\": {\"default\": {\"policy\": \"read\"}}", "1:46: Unexpected end-of-input:"
                        + " expected close marker for Object"),
                Arguments.of("namespace \"a\" {\n  policy = \"read\"\n  policy = \"write\"\n}",
                        "3:3: \"policy\" is set twice in namespace \"a\""),
                Arguments.of("{\"node\": {\"policy\": \"read\",\n \"policy\": \"write\"}}",
                        "2:2: \"policy\" is set twice in node"),
                Arguments.of("{\"node\": [{\"policy\": \"read\"}, {\"policy\": \"write\"}]}",
                        "1:10: node must be a single block, not several"),
                Arguments.of("{\"namespace\": {\"default\": \"read\"}}",
                        "1:27: namespace \"default\" must be a block, not a string"),
                // JSON only as an object: anything else is read as HCL
                Arguments.of("[{\"node\": {\"policy\": \"read\"}}]", "1:1: Argument or block definition required;"
                        + " An argument or block definition is required here."),
                Arguments.of("namespace \"default\" {\n  policy = read\n}", "2:12: Unknown variable; There is no"
                        + " variable named \"read\"."));
    }

    @ParameterizedTest
    @MethodSource("errors")
    void errorsNameTheProblemAndItsPosition(String policy, String message) {
        CaravanException e = assertThrows(CaravanException.class, () -> AclPolicies.parse(policy));
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        assertEquals("Failed to parse ACL policy: " + message, e.getMessage());
    }

    @SafeVarargs
    private static Set<String> union(Set<String>... sets) {
        return Stream.of(sets).flatMap(Set::stream).collect(Collectors.toUnmodifiableSet());
    }
}
