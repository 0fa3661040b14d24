package io.caravan.server.internal.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.api.CaravanException;
import io.caravan.api.acl.AclAuthMethod;
import io.caravan.api.acl.AclBindingRule;
import org.junit.jupiter.api.Test;

class BindingsTest {
    private static final AclAuthMethod.Config CONFIG = new AclAuthMethod.Config(null, null, null, null, null, null,
            null, false, false, null, null, null, null, null, null, null, null,
            Map.of("team", "team", "/org/name", "org", "absent", "nothing"),
            Map.of("groups", "groups", "single", "single"), false);
    private static final Set<String> POLICIES = Set.of("eng-read", "ops-write");
    private static final Set<String> ROLES = Set.of("platform");

    private static Bindings.Claims claims() throws Exception {
        return Bindings.map(CONFIG, new ObjectMapper().readTree("""
                {"sub": "alice", "team": "eng", "org": {"name": "acme"}, "groups": ["dev", "platform", 7],
                 "single": "solo"}"""));
    }

    private static AclBindingRule rule(String selector, String type, String name) {
        return new AclBindingRule("id-" + selector.hashCode(), "", "m", selector, type, name, null, null, 0, 0);
    }

    private static Bindings.Bound bind(AclBindingRule... rules) throws Exception {
        return Bindings.bind(List.of(rules), claims(), POLICIES::contains, ROLES::contains);
    }

    @Test
    void claimMappingsBecomeValueAndListVariables() throws Exception {
        Bindings.Claims c = claims();
        assertEquals(Map.of("team", "eng", "org", "acme"), c.value());
        assertEquals(Map.of("groups", List.of("dev", "platform", "7"), "single", List.of("solo")), c.list());
    }

    @Test
    void matchingRulesBindPoliciesAndRolesWithInterpolatedNames() throws Exception {
        Bindings.Bound bound = bind(
                rule("value.team == \"eng\"", AclBindingRule.POLICY, "${value.team}-read"),
                rule("\"platform\" in list.groups", AclBindingRule.ROLE, "platform"),
                rule("value.team == \"ops\"", AclBindingRule.POLICY, "ops-write"));
        assertFalse(bound.management());
        assertEquals(List.of("eng-read"), bound.policies());
        assertEquals(List.of("platform"), bound.roles());
    }

    @Test
    void anEmptySelectorMatchesEveryLoginAndManagementWins() throws Exception {
        Bindings.Bound bound = bind(rule("", AclBindingRule.POLICY, "eng-read"),
                rule("value.org == \"acme\"", AclBindingRule.MANAGEMENT, ""));
        assertTrue(bound.management());
        assertEquals(List.of(), bound.policies());
    }

    @Test
    void missingTargetsUnknownVariablesAndUnevaluableSelectorsBindNothing() throws Exception {
        Bindings.Bound bound = bind(rule("", AclBindingRule.POLICY, "no-such-policy"),
                rule("", AclBindingRule.POLICY, "${value.nothing}"),
                rule("sub == \"alice\"", AclBindingRule.POLICY, "eng-read"),
                rule("\"admins\" in list.groups", AclBindingRule.MANAGEMENT, ""));
        assertTrue(bound.none(), bound.toString());
    }

    @Test
    void interpolationReplacesKnownNamesOnly() {
        assertEquals("JWT-corp-alice", Bindings.interpolate("${auth_method_type}-${auth_method_name}-${value.user}",
                Map.of("user", "alice"), Map.of("auth_method_type", "JWT", "auth_method_name", "corp")));
        assertNull(Bindings.interpolate("${value.user}", Map.of(), Map.of()));
        assertEquals("plain $5", Bindings.interpolate("plain $5", Map.of(), Map.of()));
    }

    @Test
    void aSelectorThatDoesNotParseIsA400NamingTheField() {
        CaravanException e = assertThrows(CaravanException.class, () -> Bindings.checkSelector("value.team =="));
        assertTrue(e.getMessage().startsWith("Selector: selector is invalid: "), e.getMessage());
        Bindings.checkSelector("");
        Bindings.checkSelector("\"dev\" in list.groups and value.team != \"x\"");
    }
}
