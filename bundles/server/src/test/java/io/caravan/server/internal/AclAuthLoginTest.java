package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclAuthMethod;
import io.caravan.api.acl.AclBindingRule;
import io.caravan.api.acl.AclPolicy;
import io.caravan.api.acl.AclRole;
import io.caravan.api.acl.AclToken;
import io.caravan.api.json.NomadJson;
import io.caravan.server.internal.auth.TestJwts;
import io.caravan.state.StateStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Auth methods and binding rules as the log applies them, and what a login gets from them. */
class AclAuthLoginTest {
    private static final Instant NOW = Instant.parse("2026-11-25T02:00:00Z");
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final StateStore store = StateStore.create(NomadTables.ALL, timers, timers);
    private final Fsm fsm = new Fsm(store);
    private final AclAuthRoutes routes = new AclAuthRoutes(store, null, config(), Clock.fixed(NOW, ZoneOffset.UTC));
    private KeyPair keys;
    private long index = 1;

    static AclConfig config() {
        return new AclConfig() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return AclConfig.class;
            }

            @Override
            public boolean acl_enabled() {
                return true;
            }

            @Override
            public String data_dir() {
                return "";
            }

            @Override
            public long acl_token_min_ttl_ms() {
                return 60_000;
            }

            @Override
            public long acl_token_max_ttl_ms() {
                return 86_400_000;
            }
        };
    }

    @BeforeEach
    void setUp() throws Exception {
        keys = TestJwts.rsa();
        apply(new Command.AclPolicyUpsert(List.of(new AclPolicy("eng-read", "", "namespace \"default\" {}", 0, 0))));
        apply(new Command.AclRoleUpsert(List.of(new AclRole("r-1", "platform", "",
                List.of(new AclRole.PolicyLink("eng-read")), 0, 0))));
        apply(new Command.AclAuthMethodUpsert(List.of(method("corp", true))));
    }

    @AfterEach
    void stop() {
        timers.shutdownNow();
    }

    private AclAuthMethod method(String name, boolean isDefault) {
        return new AclAuthMethod(name, AclAuthMethod.JWT, AclAuthMethod.GLOBAL, "${auth_method_name}-${value.user}",
                Duration.ofHours(1), isDefault, new AclAuthMethod.Config(List.of(TestJwts.pem(keys.getPublic())),
                null, null, null, null, null, null, false, false, List.of("caravan"), List.of("https://idp"), null,
                null, null, null, null, null, Map.of("sub", "user"), Map.of("groups", "groups"), false),
                NOW, NOW, 0, 0);
    }

    /** Through the codec, as the log carries it. */
    private Command.Result apply(Command command) {
        return fsm.apply(index++, CommandCodec.decode(CommandCodec.encode(command)));
    }

    private String jwt(String sub, List<String> groups) throws Exception {
        return TestJwts.sign("RS256", keys.getPrivate(), Map.of("sub", sub, "groups", groups, "aud", "caravan",
                "iss", "https://idp", "iat", NOW.getEpochSecond(), "exp", NOW.plusSeconds(300).getEpochSecond()));
    }

    private AclToken login(String jwt) {
        return AclAuthRoutes.loginToken(store.snapshot(), new AclAuthRoutes.LoginRequest("corp", jwt), NOW);
    }

    private void rule(String selector, String type, String name) {
        Command.Result r = apply(new Command.AclBindingRuleUpsert(List.of(new AclBindingRule(
                "rule-" + index, "", "corp", selector, type, name, NOW, NOW, 0, 0))));
        assertEquals(0, r.errorCode(), r.error());
    }

    @Test
    void aLoginGetsTheRolesAndPoliciesOfTheMatchingRules() throws Exception {
        rule("\"dev\" in list.groups", AclBindingRule.ROLE, "platform");
        rule("value.user == \"alice\"", AclBindingRule.POLICY, "eng-read");
        rule("\"admins\" in list.groups", AclBindingRule.MANAGEMENT, "");
        AclToken token = login(jwt("alice", List.of("dev")));
        assertEquals(AclToken.CLIENT, token.type());
        assertEquals("corp-alice", token.name());
        assertEquals(List.of("eng-read"), token.policies());
        assertEquals(List.of(new AclToken.RoleLink("r-1", "platform")), token.roles());
        assertTrue(token.global());
        assertEquals(NOW.plus(Duration.ofHours(1)), token.expirationTime());
        assertEquals(Duration.ofHours(1), token.expirationTtl());

        AclToken admin = login(jwt("bob", List.of("admins")));
        assertEquals(AclToken.MANAGEMENT, admin.type());
        assertEquals(List.of(), admin.policies());
    }

    @Test
    void aLoginThatNoRuleMatchesOrWithABadTokenIsRefused() throws Exception {
        rule("value.user == \"alice\"", AclBindingRule.POLICY, "eng-read");
        CaravanException none = assertThrows(CaravanException.class, () -> login(jwt("mallory", List.of())));
        assertEquals(ErrorCode.PERMISSION_DENIED, none.code());
        assertEquals("Permission denied: no binding rule of auth method corp matched", none.getMessage());

        KeyPair other = TestJwts.rsa();
        String forged = TestJwts.sign("RS256", other.getPrivate(), Map.of("sub", "alice", "aud", "caravan",
                "iss", "https://idp", "iat", NOW.getEpochSecond()));
        CaravanException bad = assertThrows(CaravanException.class, () -> login(forged));
        assertEquals(ErrorCode.PERMISSION_DENIED, bad.code());
        assertEquals("Permission denied: failed to verify JWT signature", bad.getMessage());

        CaravanException unknown = assertThrows(CaravanException.class, () -> AclAuthRoutes.loginToken(
                store.snapshot(), new AclAuthRoutes.LoginRequest("nope", forged), NOW));
        assertEquals(ErrorCode.NOT_FOUND, unknown.code());
    }

    @Test
    void onlyOneMethodIsTheDefaultAndRulesNeedTheirMethod() {
        Command.Result second = apply(new Command.AclAuthMethodUpsert(List.of(method("other", true))));
        assertEquals(400, second.errorCode());
        assertEquals("Default: default method already exists: corp", second.error());
        assertEquals(0, apply(new Command.AclAuthMethodUpsert(List.of(method("corp", true)))).errorCode());

        Command.Result orphan = apply(new Command.AclBindingRuleUpsert(List.of(new AclBindingRule("x", "", "gone",
                "", AclBindingRule.MANAGEMENT, "", NOW, NOW, 0, 0))));
        assertEquals(400, orphan.errorCode());
        assertEquals("AuthMethod: ACL auth method gone not found", orphan.error());
    }

    @Test
    void deletingAMethodDeletesItsRules() {
        rule("", AclBindingRule.POLICY, "eng-read");
        assertEquals(1, store.snapshot().all(NomadTables.ACL_BINDING_RULES).count());
        apply(new Command.AclAuthMethodDelete(List.of("corp")));
        assertEquals(0, store.snapshot().all(NomadTables.ACL_AUTH_METHODS).count());
        assertEquals(0, store.snapshot().all(NomadTables.ACL_BINDING_RULES).count());
    }

    @Test
    void methodsAreValidatedFieldByField() {
        AclAuthMethod good = method("corp", false);
        assertEquals(good, routes.validate(good));
        assertInvalid("Name: invalid name \"bad name\": 1 to 128 letters, digits and dashes",
                new AclAuthMethod("bad name", "JWT", "local", "x", Duration.ofHours(1), false, good.config(), null,
                        null, 0, 0));
        assertInvalid("Type: invalid type \"SAML\": JWT or OIDC", new AclAuthMethod("m", "SAML", "local", "x",
                Duration.ofHours(1), false, good.config(), null, null, 0, 0));
        assertInvalid("TokenLocality: invalid token locality \"far\": local or global", new AclAuthMethod("m",
                "JWT", "far", "x", Duration.ofHours(1), false, good.config(), null, null, 0, 0));
        assertInvalid("MaxTokenTTL: invalid value \"48h0m0s\" (should be between 1m0s and 24h0m0s)",
                new AclAuthMethod("m", "JWT", "local", "x", Duration.ofHours(48), false, good.config(), null, null,
                        0, 0));
        assertInvalid("TokenNameFormat: unknown variable foo: only ${auth_method_type}, ${auth_method_name} and "
                + "${value.<claim mapping>} can be used", new AclAuthMethod("m", "JWT", "local", "${foo}-${value.user}",
                Duration.ofHours(1), false, good.config(), null, null, 0, 0));
        assertInvalid("Config: a JWT auth method needs JWTValidationPubKeys, JWKSURL or OIDCDiscoveryURL",
                new AclAuthMethod("m", "JWT", "local", "x", Duration.ofHours(1), false, AclAuthMethod.Config.EMPTY,
                        null, null, 0, 0));
        AclAuthMethod.Config junkKey = new AclAuthMethod.Config(List.of("junk"), null, null, null, null, null, null,
                false, false, null, null, null, null, null, null, null, null, null, null, false);
        assertInvalid("Config.JWTValidationPubKeys: not a PEM \"PUBLIC KEY\" or \"CERTIFICATE\" block",
                new AclAuthMethod("m", "JWT", "local", "x", Duration.ofHours(1), false, junkKey, null, null, 0, 0));
        AclAuthMethod.Config hmac = new AclAuthMethod.Config(good.config().jwtValidationPubKeys(), null, null, null,
                null, null, null, false, false, null, null, null, null, List.of("HS256"), null, null, null, null,
                null, false);
        CaravanException e = assertThrows(CaravanException.class, () -> routes.validate(new AclAuthMethod("m",
                "JWT", "local", "x", Duration.ofHours(1), false, hmac, null, null, 0, 0)));
        assertTrue(e.getMessage().startsWith("Config.SigningAlgs: unsupported algorithm \"HS256\""), e.getMessage());
    }

    private void assertInvalid(String message, AclAuthMethod method) {
        CaravanException e = assertThrows(CaravanException.class, () -> routes.validate(method));
        assertEquals(ErrorCode.BAD_REQUEST, e.code());
        assertEquals(message, e.getMessage());
    }

    @Test
    void methodsWriteNomadsJsonWithDurationTextAndListsShowNoConfig() throws Exception {
        String json = NomadJson.mapper().writeValueAsString(method("corp", true).withIndexes(5, 6));
        var tree = NomadJson.mapper().readTree(json);
        assertEquals("1h0m0s", tree.path("MaxTokenTTL").asText());
        assertTrue(tree.path("Default").asBoolean());
        assertEquals("", tree.path("Config").path("ExpirationLeeway").asText());
        assertTrue(tree.path("Config").has("JWTValidationPubKeys"), json);
        assertTrue(tree.path("Config").has("JWKSURL"), json);
        assertTrue(tree.path("Config").has("OIDCClientSecret"), json);
        // Read back as written (durations as text, "" as none), and as nanoseconds.
        assertEquals(method("corp", true).withIndexes(5, 6), NomadJson.mapper().readValue(json, AclAuthMethod.class));
        assertEquals(Duration.ofMinutes(5), NomadJson.mapper().readValue("{\"MaxTokenTTL\": 300000000000}",
                AclAuthMethod.class).maxTokenTtl());
        String stub = NomadJson.mapper().writeValueAsString(method("corp", true).stub());
        assertEquals(NomadJson.mapper().readTree(
                "{\"Name\":\"corp\",\"Type\":\"JWT\",\"Default\":true,\"CreateIndex\":0,\"ModifyIndex\":0}"),
                NomadJson.mapper().readTree(stub));
    }
}
