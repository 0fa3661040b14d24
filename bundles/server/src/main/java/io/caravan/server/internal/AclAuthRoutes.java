package io.caravan.server.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.GoDuration;
import io.caravan.api.acl.AclAuthMethod;
import io.caravan.api.acl.AclBindingRule;
import io.caravan.api.acl.AclRole;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.AclToken;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.QueryMeta;
import io.caravan.http.RouteTable;
import io.caravan.server.internal.auth.Bindings;
import io.caravan.server.internal.auth.JwtVerifier;
import io.caravan.server.internal.auth.OidcFlow;
import io.caravan.state.Indexed;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's single sign-on: auth methods ({@code /v1/acl/auth-method*}), binding rules ({@code /v1/acl/binding-rule*})
 * and the logins: {@code POST /v1/acl/login} trades a JWT that a {@code JWT} method verifies, and
 * {@code /v1/acl/oidc/auth-url} then {@code /v1/acl/oidc/complete-auth} an {@code OIDC} provider's code, for an ACL
 * token holding what the matching binding rules bind. Writes go through the Raft log; a login that fails writes
 * nothing.
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class AclAuthRoutes implements ApiRoutes {
    // Anyone may list methods (a login page needs them); the stubs carry no configuration.
    // Writes and logins run on the leader: validated against the state they are applied to, and an OIDC login's
    // state (kept in memory between auth-url and complete-auth) is found again.
    static final ApiEndpoint LIST_AUTH_METHODS = ApiEndpoint.of("ACL.ListAuthMethods", AclRule.PUBLIC);
    static final ApiEndpoint GET_AUTH_METHOD = ApiEndpoint.of("ACL.GetAuthMethod", AclRule.MANAGEMENT);
    static final ApiEndpoint UPSERT_AUTH_METHODS =
            ApiEndpoint.of("ACL.UpsertAuthMethods", AclRule.MANAGEMENT).onLeader();
    static final ApiEndpoint DELETE_AUTH_METHODS =
            ApiEndpoint.of("ACL.DeleteAuthMethods", AclRule.MANAGEMENT).onLeader();
    static final ApiEndpoint LIST_BINDING_RULES = ApiEndpoint.of("ACL.ListBindingRules", AclRule.MANAGEMENT);
    static final ApiEndpoint GET_BINDING_RULE = ApiEndpoint.of("ACL.GetBindingRule", AclRule.MANAGEMENT);
    static final ApiEndpoint UPSERT_BINDING_RULES =
            ApiEndpoint.of("ACL.UpsertBindingRules", AclRule.MANAGEMENT).onLeader();
    static final ApiEndpoint DELETE_BINDING_RULES =
            ApiEndpoint.of("ACL.DeleteBindingRules", AclRule.MANAGEMENT).onLeader();
    static final ApiEndpoint LOGIN = ApiEndpoint.of("ACL.Login", AclRule.PUBLIC).onLeader();
    static final ApiEndpoint OIDC_AUTH_URL = ApiEndpoint.of("ACL.OIDCAuthURL", AclRule.PUBLIC).onLeader();
    static final ApiEndpoint OIDC_COMPLETE_AUTH = ApiEndpoint.of("ACL.OIDCCompleteAuth", AclRule.PUBLIC).onLeader();

    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9-]{1,128}");
    private static final int MAX_DESCRIPTION = 256;
    private static final List<String> TOKEN_NAME_VARIABLES = List.of("auth_method_type", "auth_method_name");

    private final StateStore store;
    private final StateReads reads;
    private final RaftWrites writes;
    private final Clock clock;
    private final OidcFlow oidc = new OidcFlow();
    private volatile AclConfig config;

    @Activate
    public AclAuthRoutes(@Reference ServerState state, @Reference RaftWrites writes, AclConfig config) {
        this(state.store(), writes, config, Clock.systemUTC());
    }

    AclAuthRoutes(StateStore store, RaftWrites writes, AclConfig config, Clock clock) {
        this.store = store;
        this.reads = new StateReads(store, writes);
        this.writes = writes;
        this.config = config;
        this.clock = clock;
    }

    @Modified
    void modified(AclConfig changed) {
        this.config = changed;
    }

    @Override
    public void register(RouteTable routes) {
        routes.getAsync("/v1/acl/auth-methods", LIST_AUTH_METHODS, this::listAuthMethods)
                .writeAsync("/v1/acl/auth-method", UPSERT_AUTH_METHODS, r -> upsertAuthMethod(r, null))
                .getAsync("/v1/acl/auth-method/{name}", GET_AUTH_METHOD, r -> {
                    requireEnabled();
                    return reads.one(r, NomadTables.ACL_AUTH_METHODS, r.pathParam("name"), "ACL auth method not found");
                })
                .writeAsync("/v1/acl/auth-method/{name}", UPSERT_AUTH_METHODS,
                        r -> upsertAuthMethod(r, r.pathParam("name")))
                .deleteAsync("/v1/acl/auth-method/{name}", DELETE_AUTH_METHODS,
                        r -> write(new Command.AclAuthMethodDelete(List.of(r.pathParam("name")))))
                .getAsync("/v1/acl/binding-rules", LIST_BINDING_RULES, r -> {
                    requireEnabled();
                    return reads.list(r, NomadTables.ACL_BINDING_RULES, (s, rule) -> rule.stub());
                })
                .writeAsync("/v1/acl/binding-rule", UPSERT_BINDING_RULES, r -> upsertBindingRule(r, null))
                .getAsync("/v1/acl/binding-rule/{id}", GET_BINDING_RULE, r -> {
                    requireEnabled();
                    return reads.one(r, NomadTables.ACL_BINDING_RULES, r.pathParam("id"), "ACL binding rule not found");
                })
                .writeAsync("/v1/acl/binding-rule/{id}", UPSERT_BINDING_RULES,
                        r -> upsertBindingRule(r, r.pathParam("id")))
                .deleteAsync("/v1/acl/binding-rule/{id}", DELETE_BINDING_RULES,
                        r -> write(new Command.AclBindingRuleDelete(List.of(r.pathParam("id")))))
                .writeAsync("/v1/acl/login", LOGIN, this::login)
                .write("/v1/acl/oidc/auth-url", OIDC_AUTH_URL, this::oidcAuthUrl)
                .writeAsync("/v1/acl/oidc/complete-auth", OIDC_COMPLETE_AUTH, this::oidcCompleteAuth);
    }

    private void requireEnabled() {
        if (!config.acl_enabled()) {
            throw CaravanException.badRequest("ACL support disabled");
        }
    }

    private CompletionStage<ApiResponse> write(Command command) {
        requireEnabled();
        return writes.submit(command).thenApply(result -> new ApiResponse(200, null, QueryMeta.index(result.index())));
    }

    // ---- auth methods

    /** Stubs only, and no {@code filter}: a public list must not let anyone probe the methods' secrets. */
    private CompletionStage<ApiResponse> listAuthMethods(ApiRequest r) {
        requireEnabled();
        String prefix = r.options().prefix();
        return reads.query(r, (s, ws) -> {
            ws.table(NomadTables.ACL_AUTH_METHODS.name());
            return new Indexed<>(s.prefix(NomadTables.ACL_AUTH_METHODS, prefix == null ? "" : prefix)
                    .map(AclAuthMethod::stub).toList(), s.tableIndex(NomadTables.ACL_AUTH_METHODS.name()));
        });
    }

    private CompletionStage<ApiResponse> upsertAuthMethod(ApiRequest r, String name) {
        requireEnabled();
        AclAuthMethod body = r.body(AclAuthMethod.class);
        if (body == null) {
            throw CaravanException.badRequest("missing auth method");
        }
        if (name != null && body.name() != null && !body.name().isEmpty() && !body.name().equals(name)) {
            throw CaravanException.badRequest("auth method name does not match request path");
        }
        String methodName = name != null ? name : body.name();
        Optional<AclAuthMethod> existing = store.snapshot().get(NomadTables.ACL_AUTH_METHODS,
                methodName == null ? "" : methodName);
        if (name != null && existing.isEmpty()) {
            throw new CaravanException(ErrorCode.NOT_FOUND, "ACL auth method not found");
        }
        Instant now = clock.instant();
        AclAuthMethod method = validate(new AclAuthMethod(methodName, body.type(), body.tokenLocality(),
                body.tokenNameFormat() == null || body.tokenNameFormat().isEmpty()
                        ? AclAuthMethod.DEFAULT_TOKEN_NAME_FORMAT : body.tokenNameFormat(),
                body.maxTokenTtl(), body.isDefault(), body.config(),
                existing.map(AclAuthMethod::createTime).orElse(now), now, 0, 0));
        return writes.submit(new Command.AclAuthMethodUpsert(List.of(method))).thenApply(result -> {
            long create = existing.map(AclAuthMethod::createIndex).orElse(result.index());
            return ApiResponse.ok(method.withIndexes(create, result.index()), QueryMeta.index(result.index()));
        });
    }

    /** Nomad's checks of a method, each a 400 naming the field. */
    AclAuthMethod validate(AclAuthMethod m) {
        if (m.name() == null || !NAME.matcher(m.name()).matches()) {
            throw CaravanException.invalid("Name", "invalid name \"" + m.name()
                    + "\": 1 to 128 letters, digits and dashes");
        }
        if (!AclAuthMethod.JWT.equals(m.type()) && !AclAuthMethod.OIDC.equals(m.type())) {
            throw CaravanException.invalid("Type", "invalid type \"" + m.type() + "\": JWT or OIDC");
        }
        if (!AclAuthMethod.LOCAL.equals(m.tokenLocality()) && !AclAuthMethod.GLOBAL.equals(m.tokenLocality())) {
            throw CaravanException.invalid("TokenLocality", "invalid token locality \"" + m.tokenLocality()
                    + "\": local or global");
        }
        Duration min = Duration.ofMillis(config.acl_token_min_ttl_ms());
        Duration max = Duration.ofMillis(config.acl_token_max_ttl_ms());
        if (m.maxTokenTtl().compareTo(min) < 0 || m.maxTokenTtl().compareTo(max) > 0) {
            throw CaravanException.invalid("MaxTokenTTL", "invalid value \"" + GoDuration.format(m.maxTokenTtl())
                    + "\" (should be between " + GoDuration.format(min) + " and " + GoDuration.format(max) + ")");
        }
        List<String> unknown = Bindings.variables(m.tokenNameFormat()).stream()
                .filter(v -> !v.startsWith("value.") && !TOKEN_NAME_VARIABLES.contains(v)).toList();
        if (!unknown.isEmpty()) {
            throw CaravanException.invalid("TokenNameFormat", "unknown variable " + unknown.get(0) + ": only "
                    + "${auth_method_type}, ${auth_method_name} and ${value.<claim mapping>} can be used");
        }
        AclAuthMethod.Config c = m.config();
        for (String alg : c.signingAlgs()) {
            if (!JwtVerifier.algorithms().contains(alg)) {
                throw CaravanException.invalid("Config.SigningAlgs", "unsupported algorithm \"" + alg + "\": one of "
                        + JwtVerifier.algorithms().stream().sorted().toList());
            }
        }
        for (String pem : c.jwtValidationPubKeys()) {
            try {
                JwtVerifier.parsePem(pem);
            } catch (IllegalArgumentException e) {
                throw CaravanException.invalid("Config.JWTValidationPubKeys", e.getMessage());
            }
        }
        if (m.type().equals(AclAuthMethod.JWT)) {
            if (c.jwtValidationPubKeys().isEmpty() && c.jwksUrl().isEmpty() && c.oidcDiscoveryUrl().isEmpty()) {
                throw CaravanException.invalid("Config", "a JWT auth method needs JWTValidationPubKeys, JWKSURL or "
                        + "OIDCDiscoveryURL");
            }
        } else if (c.oidcDiscoveryUrl().isEmpty() || c.oidcClientId().isEmpty()) {
            throw CaravanException.invalid("Config", "an OIDC auth method needs OIDCDiscoveryURL and OIDCClientID");
        }
        return m;
    }

    // ---- binding rules

    private CompletionStage<ApiResponse> upsertBindingRule(ApiRequest r, String id) {
        requireEnabled();
        AclBindingRule body = r.body(AclBindingRule.class);
        if (body == null) {
            throw CaravanException.badRequest("missing binding rule");
        }
        if (id != null && body.id() != null && !body.id().isEmpty() && !body.id().equals(id)) {
            throw CaravanException.badRequest("binding rule ID does not match request path");
        }
        StateSnapshot s = store.snapshot();
        Optional<AclBindingRule> existing = id == null ? Optional.empty() : s.get(NomadTables.ACL_BINDING_RULES, id);
        if (id != null && existing.isEmpty()) {
            throw new CaravanException(ErrorCode.NOT_FOUND, "ACL binding rule not found");
        }
        // An update keeps what it does not set, as Nomad merges it; the auth method never changes.
        String authMethod = existing.map(AclBindingRule::authMethod).orElse(body.authMethod());
        if (existing.isPresent() && body.authMethod() != null && !body.authMethod().isEmpty()
                && !body.authMethod().equals(authMethod)) {
            throw CaravanException.invalid("AuthMethod", "cannot change the auth method of a binding rule");
        }
        String bindType = body.bindType() == null || body.bindType().isEmpty()
                ? existing.map(AclBindingRule::bindType).orElse("") : body.bindType();
        if (authMethod == null || authMethod.isEmpty()) {
            throw CaravanException.invalid("AuthMethod", "auth method is missing");
        }
        if (s.get(NomadTables.ACL_AUTH_METHODS, authMethod).isEmpty()) {
            throw CaravanException.invalid("AuthMethod", "ACL auth method " + authMethod + " not found");
        }
        if (body.description().length() > MAX_DESCRIPTION) {
            throw CaravanException.invalid("Description", "longer than " + MAX_DESCRIPTION + " characters");
        }
        switch (bindType) {
            case AclBindingRule.ROLE, AclBindingRule.POLICY -> {
                if (body.bindName().isEmpty()) {
                    throw CaravanException.invalid("BindName", "bind name is missing");
                }
            }
            case AclBindingRule.MANAGEMENT -> {
                if (!body.bindName().isEmpty()) {
                    throw CaravanException.invalid("BindName", "bind name should be empty for management");
                }
            }
            case "" -> throw CaravanException.invalid("BindType", "bind type is missing");
            default -> throw CaravanException.invalid("BindType", "unsupported bind type \"" + bindType
                    + "\": role, policy or management");
        }
        Bindings.checkSelector(body.selector());
        Instant now = clock.instant();
        AclBindingRule rule = new AclBindingRule(id != null ? id : UUID.randomUUID().toString(), body.description(),
                authMethod, body.selector(), bindType, body.bindName(),
                existing.map(AclBindingRule::createTime).orElse(now), now, 0, 0);
        return writes.submit(new Command.AclBindingRuleUpsert(List.of(rule))).thenApply(result -> {
            long create = existing.map(AclBindingRule::createIndex).orElse(result.index());
            return ApiResponse.ok(rule.withIndexes(create, result.index()), QueryMeta.index(result.index()));
        });
    }

    // ---- login

    /** Nomad's {@code ACLLoginRequest}. */
    record LoginRequest(String authMethodName, String loginToken) {}

    private CompletionStage<ApiResponse> login(ApiRequest r) {
        requireEnabled();
        LoginRequest body = r.body(LoginRequest.class);
        if (body == null || body.authMethodName() == null || body.authMethodName().isEmpty()) {
            throw CaravanException.invalid("AuthMethodName", "missing auth method name");
        }
        if (body.loginToken() == null || body.loginToken().isEmpty()) {
            throw CaravanException.invalid("LoginToken", "missing login token");
        }
        return issue(loginToken(store.snapshot(), body, clock.instant()));
    }

    private CompletionStage<ApiResponse> issue(AclToken token) {
        return writes.submit(new Command.AclTokenUpsert(List.of(token))).thenApply(result ->
                ApiResponse.ok(token.withIndexes(result.index(), result.index()), QueryMeta.index(result.index())));
    }

    /** Nomad's {@code ACLOIDCAuthURLRequest} and its answer. */
    record OidcAuthUrlRequest(String authMethodName, String redirectUri, String clientNonce) {}

    record OidcAuthUrl(String authUrl) {}

    private ApiResponse oidcAuthUrl(ApiRequest r) {
        requireEnabled();
        OidcAuthUrlRequest body = r.body(OidcAuthUrlRequest.class);
        String name = required(body == null ? null : body.authMethodName(), "AuthMethodName");
        String redirect = required(body.redirectUri(), "RedirectURI");
        String nonce = required(body.clientNonce(), "ClientNonce");
        AclAuthMethod method = method(store.snapshot(), name, AclAuthMethod.OIDC);
        try {
            return ApiResponse.ok(new OidcAuthUrl(oidc.authUrl(method, redirect, nonce, clock.instant())));
        } catch (JwtVerifier.Rejected e) {
            throw CaravanException.badRequest(e.getMessage());
        }
    }

    /** Nomad's {@code ACLOIDCCompleteAuthRequest}. */
    record OidcCompleteRequest(String authMethodName, String clientNonce, String state, String code,
                               String redirectUri) {}

    private CompletionStage<ApiResponse> oidcCompleteAuth(ApiRequest r) {
        requireEnabled();
        OidcCompleteRequest body = r.body(OidcCompleteRequest.class);
        String name = required(body == null ? null : body.authMethodName(), "AuthMethodName");
        String nonce = required(body.clientNonce(), "ClientNonce");
        String state = required(body.state(), "State");
        String code = required(body.code(), "Code");
        String redirect = required(body.redirectUri(), "RedirectURI");
        StateSnapshot s = store.snapshot();
        AclAuthMethod method = method(s, name, AclAuthMethod.OIDC);
        Instant now = clock.instant();
        JsonNode claims;
        try {
            claims = oidc.complete(method, state, code, nonce, redirect, now);
        } catch (JwtVerifier.Rejected e) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied: " + e.getMessage());
        }
        return issue(token(s, method, claims, now));
    }

    private static String required(String value, String field) {
        if (value == null || value.isEmpty()) {
            throw CaravanException.invalid(field, "missing " + field);
        }
        return value;
    }

    /** The method a login names, which must be of {@code type}. */
    private static AclAuthMethod method(StateSnapshot s, String name, String type) {
        AclAuthMethod method = s.get(NomadTables.ACL_AUTH_METHODS, name).orElseThrow(() ->
                new CaravanException(ErrorCode.NOT_FOUND, "auth method " + name + " not found"));
        if (!method.type().equals(type)) {
            throw CaravanException.invalid("AuthMethodName", "auth method " + method.name() + " is of type "
                    + method.type() + "; this login takes an " + type + " method");
        }
        return method;
    }

    /** The token a login gets, or the refusal: a JWT the method does not accept, or one no binding rule matches. */
    static AclToken loginToken(StateSnapshot s, LoginRequest body, Instant now) {
        AclAuthMethod method = method(s, body.authMethodName(), AclAuthMethod.JWT);
        JsonNode claims;
        try {
            claims = JwtVerifier.verify(method.config(), body.loginToken(), now);
        } catch (JwtVerifier.Rejected e) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied: " + e.getMessage());
        }
        return token(s, method, claims, now);
    }

    /** The token for verified claims: what the method's matching binding rules bind, for its MaxTokenTTL. */
    static AclToken token(StateSnapshot s, AclAuthMethod method, JsonNode claims, Instant now) {
        Bindings.Claims mapped = Bindings.map(method.config(), claims);
        List<AclBindingRule> rules = s.byIndex(NomadTables.ACL_BINDING_RULES, "method", method.name())
                .sorted(Comparator.comparing(AclBindingRule::createIndex)).toList();
        Bindings.Bound bound = Bindings.bind(rules, mapped,
                policy -> s.get(NomadTables.ACL_POLICIES, policy).isPresent(),
                role -> s.byIndex(NomadTables.ACL_ROLES, "name", role).findFirst().isPresent());
        if (bound.none()) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED,
                    "Permission denied: no binding rule of auth method " + method.name() + " matched");
        }
        List<AclToken.RoleLink> roles = new ArrayList<>();
        for (String name : bound.roles()) {
            s.byIndex(NomadTables.ACL_ROLES, "name", name).findFirst()
                    .ifPresent((AclRole role) -> roles.add(new AclToken.RoleLink(role.id(), role.name())));
        }
        String tokenName = Bindings.interpolate(method.tokenNameFormat(), mapped.value(), Map.of(
                "auth_method_type", method.type(), "auth_method_name", method.name()));
        if (tokenName == null) {
            tokenName = Bindings.interpolate(AclAuthMethod.DEFAULT_TOKEN_NAME_FORMAT, Map.of(), Map.of(
                    "auth_method_type", method.type(), "auth_method_name", method.name()));
        }
        Duration ttl = method.maxTokenTtl();
        return new AclToken(UUID.randomUUID().toString(), UUID.randomUUID().toString(),
                tokenName.length() > 256 ? tokenName.substring(0, 256) : tokenName,
                bound.management() ? AclToken.MANAGEMENT : AclToken.CLIENT, bound.policies(), roles,
                method.tokenLocality().equals(AclAuthMethod.GLOBAL), now, ttl.isZero() ? null : now.plus(ttl),
                ttl.isZero() ? null : ttl, 0, 0);
    }
}
