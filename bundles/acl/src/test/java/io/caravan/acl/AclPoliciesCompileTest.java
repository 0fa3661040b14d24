package io.caravan.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import com.sun.management.ThreadMXBean;

import io.caravan.api.acl.Access;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Capability;
import io.caravan.api.acl.Identity;
import io.caravan.api.acl.Scope;

class AclPoliciesCompileTest {

    private static Acl acl(String... policies) {
        return AclPolicies.compile(Stream.of(policies).map(AclPolicies::parse).toList());
    }

    @Test
    void noPoliciesAllowNothing() {
        Acl acl = AclPolicies.compile(List.of());
        assertFalse(acl.isManagement());
        assertFalse(acl.allowNamespace("default", Capability.READ_JOB));
        assertFalse(acl.allowAnyNamespace(Capability.LIST_JOBS));
        for (Scope scope : Scope.values()) {
            assertFalse(acl.allow(scope, Access.LIST));
        }
        assertFalse(acl.allowHostVolume("ssd", "mount-readonly"));
        assertFalse(acl.allowVariable("default", "a", "read"));
    }

    static Stream<Arguments> namespaceChecks() {
        String globs = """
                namespace "*" { policy = "read" }
                namespace "prod-*" { policy = "write" }
                namespace "prod-secret-*" { policy = "deny" }
                namespace "prod-api" { capabilities = ["read-logs"] }
                namespace "empty" {}
                """;
        return Stream.of(
                // exact name first, even when a glob would grant more
                Arguments.of(globs, "prod-api", Capability.READ_LOGS, true),
                Arguments.of(globs, "prod-api", Capability.SUBMIT_JOB, false),
                Arguments.of(globs, "prod-api", Capability.READ_JOB, false),
                // an exact rule without capabilities is still the match: it grants nothing
                Arguments.of(globs, "empty", Capability.READ_JOB, false),
                // else the closest glob
                Arguments.of(globs, "prod-web", Capability.SUBMIT_JOB, true),
                Arguments.of(globs, "prod-secret-db", Capability.READ_JOB, false),
                Arguments.of(globs, "prod-secret-db", Capability.LIST_JOBS, false),
                Arguments.of(globs, "dev", Capability.READ_JOB, true),
                Arguments.of(globs, "dev", Capability.SUBMIT_JOB, false),
                Arguments.of(globs, "default", Capability.LIST_JOBS, true),
                // deny is never a capability one is granted
                Arguments.of(globs, "prod-secret-db", Capability.DENY, false),
                Arguments.of(globs, "dev", "not-a-capability", false),
                // a glob matching from the end is as close as its stars are short
                Arguments.of("""
                        namespace "*-web" { policy = "write" }
                        namespace "prod-*" { policy = "read" }
                        """, "prod-web", Capability.SUBMIT_JOB, false),
                Arguments.of("""
                        namespace "*-web" { policy = "write" }
                        namespace "prod-*" { policy = "read" }
                        """, "eu-prod-web", Capability.SUBMIT_JOB, true),
                // equally close globs: the one that sorts last wins, as in Nomad
                Arguments.of("""
                        namespace "a*" { policy = "write" }
                        namespace "*b" { policy = "read" }
                        """, "ab", Capability.SUBMIT_JOB, true),
                Arguments.of("""
                        namespace "*b" { policy = "write" }
                        namespace "a*" { policy = "read" }
                        """, "ab", Capability.SUBMIT_JOB, false),
                // no rule matches
                Arguments.of("namespace \"prod-*\" { policy = \"write\" }", "dev", Capability.READ_JOB, false),
                // coarse expansions
                Arguments.of("namespace \"a\" { policy = \"scale\" }", "a", Capability.SCALE_JOB, true),
                Arguments.of("namespace \"a\" { policy = \"scale\" }", "a", Capability.LIST_JOBS, false),
                Arguments.of("namespace \"a\" { policy = \"read\" }", "a", Capability.SCALE_JOB, false),
                Arguments.of("namespace \"a\" { policy = \"write\" }", "a", Capability.ALLOC_NODE_EXEC, false),
                Arguments.of("""
                        namespace "a" {
                          policy = "write"
                          capabilities = ["alloc-node-exec"]
                        }
                        """, "a", Capability.ALLOC_NODE_EXEC, true),
                Arguments.of("namespace \"a\" { capabilities = [\"host-volume-write\"] }", "a",
                        Capability.HOST_VOLUME_DELETE, true));
    }

    @ParameterizedTest(name = "[{index}] {1} {2} -> {3}")
    @MethodSource("namespaceChecks")
    void namespaces(String policy, String namespace, String capability, boolean allowed) {
        assertEquals(allowed, acl(policy).allowNamespace(namespace, capability));
    }

    @Test
    void policiesMergeByUnionAndDenyWinsForTheSameRule() {
        Acl acl = acl("namespace \"default\" { policy = \"read\" }",
                "namespace \"default\" { capabilities = [\"submit-job\"] }",
                "namespace \"ops\" { policy = \"write\" }",
                "namespace \"ops\" { policy = \"deny\" }",
                "namespace \"ops\" { policy = \"write\" }",
                "namespace \"prod-*\" { policy = \"write\" }",
                "namespace \"prod-*\" { capabilities = [\"deny\"] }");
        assertTrue(acl.allowNamespace("default", Capability.READ_JOB));
        assertTrue(acl.allowNamespace("default", Capability.SUBMIT_JOB));
        assertFalse(acl.allowNamespace("default", Capability.READ_LOGS));
        assertFalse(acl.allowNamespace("ops", Capability.READ_JOB));
        assertFalse(acl.allowNamespace("prod-web", Capability.READ_JOB));
    }

    @Test
    void denyOnAGlobDoesNotReachAnExactRule() {
        Acl acl = acl("namespace \"*\" { policy = \"deny\" }", "namespace \"default\" { policy = \"read\" }");
        assertTrue(acl.allowNamespace("default", Capability.READ_JOB));
        assertFalse(acl.allowNamespace("other", Capability.READ_JOB));
    }

    @Test
    void anyNamespace() {
        Acl acl = acl("""
                namespace "prod-*" { policy = "read" }
                namespace "ops" { capabilities = ["read-logs"] }
                namespace "secret" { policy = "deny" }
                """);
        assertTrue(acl.allowAnyNamespace(Capability.LIST_JOBS));
        assertTrue(acl.allowAnyNamespace(Capability.READ_LOGS));
        assertFalse(acl.allowAnyNamespace(Capability.SUBMIT_JOB));
        assertFalse(acl.allowAnyNamespace(Capability.DENY));
        Acl denied = acl("namespace \"a\" { policy = \"write\" }", "namespace \"a\" { policy = \"deny\" }");
        assertFalse(denied.allowAnyNamespace(Capability.LIST_JOBS));
        // namespace=* asked of allowNamespace means the same, as in Nomad
        assertTrue(acl.allowNamespace("*", Capability.READ_LOGS));
        assertFalse(acl.allowNamespace("*", Capability.SUBMIT_JOB));
    }

    static Stream<Arguments> scopeChecks() {
        return Stream.of(
                Arguments.of(List.of("node { policy = \"read\" }"), Scope.NODE, Access.READ, true),
                Arguments.of(List.of("node { policy = \"read\" }"), Scope.NODE, Access.WRITE, false),
                Arguments.of(List.of("node { policy = \"read\" }"), Scope.AGENT, Access.READ, false),
                Arguments.of(List.of("agent { policy = \"write\" }"), Scope.AGENT, Access.READ, true),
                Arguments.of(List.of("operator { policy = \"read\" }", "operator { policy = \"write\" }"),
                        Scope.OPERATOR, Access.WRITE, true),
                Arguments.of(List.of("operator { policy = \"write\" }", "operator { policy = \"deny\" }"),
                        Scope.OPERATOR, Access.READ, false),
                Arguments.of(List.of("quota { policy = \"deny\" }", "quota { policy = \"write\" }"),
                        Scope.QUOTA, Access.READ, false),
                Arguments.of(List.of("plugin { policy = \"list\" }"), Scope.PLUGIN, Access.LIST, true),
                Arguments.of(List.of("plugin { policy = \"list\" }"), Scope.PLUGIN, Access.READ, false),
                Arguments.of(List.of("plugin { policy = \"read\" }"), Scope.PLUGIN, Access.LIST, true),
                Arguments.of(List.of("plugin { policy = \"list\" }", "plugin { policy = \"read\" }"), Scope.PLUGIN,
                        Access.READ, true),
                Arguments.of(List.of("namespace \"*\" { policy = \"write\" }"), Scope.NODE, Access.READ, false));
    }

    @ParameterizedTest(name = "[{index}] {1} {2} -> {3}")
    @MethodSource("scopeChecks")
    void scopes(List<String> policies, Scope scope, Access access, boolean allowed) {
        assertEquals(allowed, acl(policies.toArray(String[]::new)).allow(scope, access));
    }

    static Stream<Arguments> hostVolumeChecks() {
        String policy = """
                host_volume "*" { policy = "read" }
                host_volume "prod-*" { policy = "write" }
                host_volume "prod-secret" { policy = "deny" }
                """;
        return Stream.of(
                Arguments.of(policy, "scratch", "mount-readonly", true),
                Arguments.of(policy, "scratch", "mount-readwrite", false),
                Arguments.of(policy, "prod-data", "mount-readwrite", true),
                Arguments.of(policy, "prod-secret", "mount-readonly", false),
                Arguments.of(policy, "prod-secret", "deny", false));
    }

    @ParameterizedTest(name = "[{index}] {1} {2} -> {3}")
    @MethodSource("hostVolumeChecks")
    void hostVolumes(String policy, String volume, String capability, boolean allowed) {
        assertEquals(allowed, acl(policy).allowHostVolume(volume, capability));
    }

    static Stream<Arguments> variableChecks() {
        String policy = """
                namespace "default" {
                  policy = "write"
                  variables {
                    path "nomad/jobs/*" { capabilities = ["read"] }
                    path "nomad/jobs/web/*" { capabilities = ["write", "read", "destroy"] }
                    path "nomad/jobs/web/secret" { capabilities = ["deny"] }
                    path "project" { capabilities = ["list"] }
                  }
                }
                namespace "*" {
                  variables {
                    path "shared/*" { capabilities = ["read"] }
                  }
                }
                namespace "prod-*" {
                  variables {
                    path "*" { capabilities = ["list"] }
                  }
                }
                """;
        return Stream.of(
                Arguments.of(policy, "default", "nomad/jobs/api", "read", true),
                Arguments.of(policy, "default", "nomad/jobs/api", "list", true), // read implies list
                Arguments.of(policy, "default", "nomad/jobs/api", "write", false),
                Arguments.of(policy, "default", "nomad/jobs/web/db", "write", true), // the closer glob
                Arguments.of(policy, "default", "nomad/jobs/web/db", "destroy", true),
                Arguments.of(policy, "default", "nomad/jobs/web/secret", "read", false), // exact deny
                Arguments.of(policy, "default", "project", "list", true),
                Arguments.of(policy, "default", "project", "read", false),
                Arguments.of(policy, "default", "project/x", "list", false),
                // the namespace's policy grants no variables
                Arguments.of(policy, "default", "other", "read", false),
                // a namespace glob with an exact path
                Arguments.of(policy, "dev", "shared/cfg", "read", true),
                Arguments.of(policy, "default", "shared/cfg", "read", true),
                Arguments.of(policy, "dev", "nomad/jobs/api", "read", false),
                // both stars count: prod-* with * (3 + 10) is farther than * with shared/* (7 + 3)
                Arguments.of(policy, "prod-eu", "shared/cfg", "read", true),
                Arguments.of(policy, "prod-eu", "anything", "list", true),
                Arguments.of(policy, "prod-eu", "anything", "read", false),
                Arguments.of(policy, "prod-eu", "anything", "deny", false));
    }

    @ParameterizedTest(name = "[{index}] {1} {2} {3} -> {4}")
    @MethodSource("variableChecks")
    void variables(String policy, String namespace, String path, String capability, boolean allowed) {
        assertEquals(allowed, acl(policy).allowVariable(namespace, path, capability));
    }

    @Test
    void aVariablesSearchNeedsSomeGrantingRuleInTheNamespace() {
        Acl acl = acl("namespace \"dev-*\" {\n variables {\n path \"app/*\" { capabilities = [\"list\"] }\n }\n}",
                "namespace \"prod\" {\n variables {\n path \"*\" { capabilities = [\"deny\"] }\n }\n}",
                "namespace \"ops\" { policy = \"write\" }");
        assertTrue(acl.allowVariableSearch("dev-1"));
        assertTrue(acl.allowVariableSearch("*"));
        assertFalse(acl.allowVariableSearch("prod"), "only a deny");
        assertFalse(acl.allowVariableSearch("ops"), "a namespace policy grants no variables");
        assertFalse(acl.allowVariableSearch(null));
        assertFalse(acl("namespace \"ops\" { policy = \"write\" }").allowVariableSearch("*"));
        assertTrue(Acl.MANAGEMENT.allowVariableSearch("default"));
        assertFalse(Acl.NONE.allowVariableSearch("default"));
    }

    @Test
    void variablesMergeAcrossPoliciesAndDenyWins() {
        String read = "namespace \"a\" {\n variables {\n path \"x/*\" { capabilities = [\"read\"] }\n }\n}";
        String write = "namespace \"a\" {\n variables {\n path \"x/*\" { capabilities = [\"write\"] }\n }\n}";
        String deny = "namespace \"a\" {\n variables {\n path \"x/*\" { capabilities = [\"deny\"] }\n }\n}";
        Acl merged = acl(read, write);
        assertTrue(merged.allowVariable("a", "x/1", "read"));
        assertTrue(merged.allowVariable("a", "x/1", "write"));
        Acl denied = acl(read, deny, write);
        assertFalse(denied.allowVariable("a", "x/1", "read"));
        assertFalse(denied.allowVariable("a", "x/1", "write"));
    }

    @Test
    void nullsAreRefusedNotThrown() {
        Acl acl = acl("namespace \"*\" { policy = \"write\" }");
        assertFalse(acl.allowNamespace(null, Capability.READ_JOB));
        assertFalse(acl.allowNamespace("default", null));
        assertFalse(acl.allowVariable(null, "a", "read"));
    }

    @Test
    void checksAllocateNothing() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof ThreadMXBean);
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        Acl acl = acl("""
                namespace "*" { policy = "read" }
                namespace "prod-*" { policy = "write" }
                namespace "prod-*-db" { policy = "deny" }
                namespace "default" {
                  policy = "write"
                  variables {
                    path "nomad/jobs/*" { capabilities = ["read"] }
                  }
                }
                host_volume "ssd-*" { policy = "write" }
                node { policy = "read" }
                """);
        String[] namespaces = {"default", "prod-web", "prod-eu-db", "dev", "unknown-namespace-name"};
        int granted = 0;
        for (int round = 0; round < 2; round++) { // the first round warms up (class loading, interpreter)
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 200_000; i++) {
                String ns = namespaces[i % namespaces.length];
                granted += acl.allowNamespace(ns, Capability.SUBMIT_JOB) ? 1 : 0;
                granted += acl.allowAnyNamespace(Capability.READ_JOB) ? 1 : 0;
                granted += acl.allowVariable(ns, "nomad/jobs/web", "read") ? 1 : 0;
                granted += acl.allowHostVolume("ssd-1", "mount-readwrite") ? 1 : 0;
                granted += acl.allow(Scope.NODE, Access.READ) ? 1 : 0;
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            if (round == 1) {
                // 1,000,000 checks: one allocated object each would be 16 MB
                assertTrue(allocated < 64 * 1024, "checks allocated " + allocated + " bytes");
            }
        }
        assertEquals(2 * 200_000 * 3 + 2 * 200_000 / 5 * 2 + 2 * 200_000 / 5, granted);
    }

    /** Every policy the API suggests for a rule (in errors and the enforcement matrix) parses and grants it. */
    @Test
    void theGrantingPolicyOfEveryRuleGrantsIt() {
        List<AclRule> rules = new ArrayList<>();
        for (String capability : Capability.ALL) {
            if (!capability.equals(Capability.DENY)) {
                rules.add(AclRule.namespace(capability));
            }
        }
        for (Scope scope : Scope.values()) {
            for (Access access : List.of(Access.READ, Access.WRITE)) {
                rules.add(AclRule.scope(scope, access));
            }
        }
        rules.add(AclRule.scope(Scope.PLUGIN, Access.LIST)); // list is a level of plugin rules only, as in Nomad
        rules.add(AclRule.AUTHENTICATED);
        for (String capability : List.of("read", "write", "list", "destroy")) {
            rules.add(AclRule.variable(capability));
        }
        for (AclRule rule : rules) {
            for (String namespace : List.of("default", "prod-web", "*")) {
                String policy = rule.grantingPolicy(namespace).orElseThrow();
                Identity caller = new Identity(Identity.Kind.TOKEN, "accessor", "test", acl(policy));
                assertTrue(rule.allows(caller, namespace), rule.describe() + " in " + namespace + ": " + policy);
                if (rule instanceof AclRule.Variable variable) {
                    // The handler's check, on a path: the policy grants it on every path of that namespace.
                    assertTrue(variable.allows(caller, namespace, "app/db/config"), rule.describe() + ": " + policy);
                    assertFalse(!namespace.equals("*") && variable.allows(caller, "elsewhere", "app/db/config"),
                            rule.describe() + " is granted in " + namespace + " only");
                }
            }
        }
        Identity other = new Identity(Identity.Kind.TOKEN, "accessor", "test",
                acl(AclRule.namespace(Capability.SUBMIT_JOB).grantingPolicy("default").orElseThrow()));
        assertFalse(AclRule.namespace(Capability.SUBMIT_JOB).allows(other, "prod-web"));
        assertFalse(AclRule.namespace(Capability.READ_JOB).allows(other, "default"));
    }

    @Test
    void managementAndNoneStayTheApiConstants() {
        assertSame(Acl.NONE, AclPolicies.compile(List.of()));
        assertFalse(acl("node { policy = \"write\" }").isManagement());
    }

    @Test
    void nodePoolRulesAsNomadsWriteAlsoDeletesAndGlobsMatch() {
        Acl acl = acl("""
                node_pool "prod" {
                  policy = "read"
                }
                node_pool "dev-*" {
                  policy = "write"
                }
                node_pool "dev-locked" {
                  policy = "deny"
                }
                """);
        assertTrue(acl.allowNodePool("prod", "read"));
        assertFalse(acl.allowNodePool("prod", "write"));
        assertTrue(acl.allowNodePool("dev-a", "write"));
        assertTrue(acl.allowNodePool("dev-a", "delete"));
        assertFalse(acl.allowNodePool("dev-locked", "read"), "deny wins for its exact name");
        assertFalse(acl.allowNodePool("default", "read"));
        assertTrue(acl.allowNodePoolSearch());
        assertFalse(acl("node { policy = \"read\" }").allowNodePoolSearch());
    }
}
