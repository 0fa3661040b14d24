package io.caravan.server.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.GoDuration;
import io.caravan.api.acl.AclPolicy;
import io.caravan.api.acl.AclRole;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.AclToken;
import io.caravan.api.acl.Identity;
import io.caravan.api.acl.PolicyCompiler;
import io.caravan.api.model.GoTime;
import io.caravan.api.model.NanoDuration;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.QueryMeta;
import io.caravan.http.RouteTable;
import io.caravan.state.Indexed;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's {@code /v1/acl/*}: bootstrap, policies, tokens, roles and whoami. Every write goes through the Raft log, so
 * every server agrees; secrets appear only in the answer to whoever created the token (or its owner), never in lists.
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class AclRoutes implements ApiRoutes {
    static final ApiEndpoint BOOTSTRAP = ApiEndpoint.of("ACL.Bootstrap", AclRule.PUBLIC).onLeader();
    static final ApiEndpoint WHOAMI = ApiEndpoint.of("ACL.WhoAmI", AclRule.PUBLIC);
    // Writes run on the leader, which validates them (the policies a token names exist, a role's name is free, the
    // bootstrap is the first) against the state they are applied to.
    // Listing and reading policies and roles: management sees all, other callers what their token holds.
    static final ApiEndpoint LIST_POLICIES = ApiEndpoint.of("ACL.ListPolicies", AclRule.PUBLIC);
    static final ApiEndpoint GET_POLICY = ApiEndpoint.of("ACL.GetPolicy", AclRule.OWN);
    static final ApiEndpoint UPSERT_POLICIES = ApiEndpoint.of("ACL.UpsertPolicies", AclRule.MANAGEMENT).onLeader();
    static final ApiEndpoint DELETE_POLICIES = ApiEndpoint.of("ACL.DeletePolicies", AclRule.MANAGEMENT).onLeader();
    static final ApiEndpoint LIST_TOKENS = ApiEndpoint.of("ACL.ListTokens", AclRule.MANAGEMENT);
    static final ApiEndpoint GET_TOKEN = ApiEndpoint.of("ACL.GetToken", AclRule.OWN);
    static final ApiEndpoint GET_TOKEN_SELF = ApiEndpoint.of("ACL.GetTokenSelf", AclRule.AUTHENTICATED);
    static final ApiEndpoint UPSERT_TOKENS = ApiEndpoint.of("ACL.UpsertTokens", AclRule.MANAGEMENT).onLeader();
    static final ApiEndpoint DELETE_TOKENS = ApiEndpoint.of("ACL.DeleteTokens", AclRule.MANAGEMENT).onLeader();
    static final ApiEndpoint LIST_ROLES = ApiEndpoint.of("ACL.ListRoles", AclRule.PUBLIC);
    static final ApiEndpoint GET_ROLE = ApiEndpoint.of("ACL.GetRoleByID", AclRule.OWN);
    static final ApiEndpoint GET_ROLE_BY_NAME = ApiEndpoint.of("ACL.GetRoleByName", AclRule.OWN);
    static final ApiEndpoint UPSERT_ROLES = ApiEndpoint.of("ACL.UpsertRoles", AclRule.MANAGEMENT).onLeader();
    static final ApiEndpoint DELETE_ROLES = ApiEndpoint.of("ACL.DeleteRolesByID", AclRule.MANAGEMENT).onLeader();

    /** Nomad's rule for policy and role names. */
    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9-]{1,128}");
    private static final int MAX_DESCRIPTION = 256;
    private static final String RESET_FILE = "acl-bootstrap-reset";

    private final StateStore store;
    private final StateReads reads;
    private final RaftWrites writes;
    private final PolicyCompiler compiler;
    private final Clock clock;
    private volatile AclConfig config;

    @Activate
    public AclRoutes(@Reference ServerState state, @Reference RaftWrites writes, @Reference PolicyCompiler policies,
                     AclConfig config) {
        this(state.store(), writes, policies, config, Clock.systemUTC());
    }

    AclRoutes(StateStore store, RaftWrites writes, PolicyCompiler policies, AclConfig config, Clock clock) {
        this.store = store;
        this.compiler = policies;
        this.reads = new StateReads(store, writes);
        this.writes = writes;
        this.clock = clock;
        this.config = config;
    }

    @Modified
    void modified(AclConfig changed) {
        this.config = changed;
    }

    @Override
    public void register(RouteTable routes) {
        routes.writeAsync("/v1/acl/bootstrap", BOOTSTRAP, this::bootstrap)
                .get("/v1/acl/whoami", WHOAMI, this::whoAmI)
                .getAsync("/v1/acl/policies", LIST_POLICIES, this::listPolicies)
                .getAsync("/v1/acl/policy/{name}", GET_POLICY, this::getPolicy)
                .writeAsync("/v1/acl/policy/{name}", UPSERT_POLICIES, this::upsertPolicy)
                .deleteAsync("/v1/acl/policy/{name}", DELETE_POLICIES, this::deletePolicy)
                .getAsync("/v1/acl/tokens", LIST_TOKENS, r -> reads.query(r, (s, ws) -> {
                    ws.table(NomadTables.ACL_TOKENS.name());
                    return new Indexed<>(s.all(NomadTables.ACL_TOKENS).map(AclToken::stub).toList(),
                            s.tableIndex(NomadTables.ACL_TOKENS.name()));
                }))
                .writeAsync("/v1/acl/token", UPSERT_TOKENS, r -> upsertToken(r, null))
                .get("/v1/acl/token/self", GET_TOKEN_SELF, r -> ApiResponse.ok(self(r)
                        .orElseThrow(() -> new CaravanException(ErrorCode.NOT_FOUND, "ACL token not found"))))
                .getAsync("/v1/acl/token/{accessor}", GET_TOKEN, this::getToken)
                .writeAsync("/v1/acl/token/{accessor}", UPSERT_TOKENS, r -> upsertToken(r, r.pathParam("accessor")))
                .deleteAsync("/v1/acl/token/{accessor}", DELETE_TOKENS, r -> delete(r,
                        new Command.AclTokenDelete(List.of(r.pathParam("accessor")))))
                .getAsync("/v1/acl/roles", LIST_ROLES, this::listRoles)
                .writeAsync("/v1/acl/role", UPSERT_ROLES, r -> upsertRole(r, null))
                .getAsync("/v1/acl/role/name/{name}", GET_ROLE_BY_NAME, r -> getRole(r, (s, name) ->
                        s.byIndex(NomadTables.ACL_ROLES, "name", name).findFirst(), r.pathParam("name")))
                .getAsync("/v1/acl/role/{id}", GET_ROLE, r -> getRole(r, (s, id) -> s.get(NomadTables.ACL_ROLES, id),
                        r.pathParam("id")))
                .writeAsync("/v1/acl/role/{id}", UPSERT_ROLES, r -> upsertRole(r, r.pathParam("id")))
                .deleteAsync("/v1/acl/role/{id}", DELETE_ROLES, r -> delete(r,
                        new Command.AclRoleDelete(List.of(r.pathParam("id")))));
    }

    /** Nomad answers every ACL endpoint this way while ACLs are off. */
    private void requireEnabled() {
        if (!config.acl_enabled()) {
            throw CaravanException.badRequest("ACL support disabled");
        }
    }

    // ---- bootstrap and whoami

    record BootstrapRequest(String bootstrapSecret) {}

    private CompletionStage<ApiResponse> bootstrap(ApiRequest r) {
        requireEnabled();
        String secret = null;
        if (r.rawBody().length > 0) {
            BootstrapRequest body = r.body(BootstrapRequest.class);
            secret = body == null ? null : body.bootstrapSecret();
        }
        if (secret != null && !secret.isEmpty() && !isUuid(secret)) {
            throw CaravanException.invalid("BootstrapSecret", "must be a UUID");
        }
        long resetIndex = resetIndex();
        Optional<AclApply.Bootstrapped> done = store.snapshot().get(NomadTables.ACL_BOOTSTRAP,
                AclApply.Bootstrapped.KEY);
        if (done.isPresent() && done.get().index() != resetIndex) {
            throw CaravanException.badRequest(AclApply.alreadyDone(done.get().index()));
        }
        Instant now = clock.instant();
        AclToken token = new AclToken(UUID.randomUUID().toString(),
                secret == null || secret.isEmpty() ? UUID.randomUUID().toString() : secret, "Bootstrap Token",
                AclToken.MANAGEMENT, List.of(), List.of(), true, now, null, null, 0, 0);
        return writes.submit(new Command.AclBootstrap(token, resetIndex)).thenApply(result ->
                ApiResponse.ok(token.withIndexes(result.index(), result.index()), QueryMeta.index(result.index())));
    }

    /** The index an operator wrote into {@code <data_dir>/server/acl-bootstrap-reset}, 0 without that file. */
    private long resetIndex() {
        if (config.data_dir().isEmpty()) {
            return 0;
        }
        Path file = Path.of(config.data_dir(), "server", RESET_FILE);
        try {
            return Long.parseLong(Files.readString(file, StandardCharsets.UTF_8).trim());
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException | NumberFormatException e) {
            throw CaravanException.badRequest("invalid " + file + ": " + e.getMessage());
        }
    }

    /** Nomad's {@code ACLWhoAmIResponse}: who the call authenticated as. */
    record WhoAmI(AuthenticatedIdentity identity) {}

    record AuthenticatedIdentity(AclToken aclToken, String clientId, String remoteIp) {}

    private ApiResponse whoAmI(ApiRequest r) {
        Identity caller = r.identity();
        AclToken token = self(r).orElse(null);
        return ApiResponse.ok(new WhoAmI(new AuthenticatedIdentity(token,
                caller.kind() == Identity.Kind.NODE ? caller.id() : null, r.remoteAddress())));
    }

    /** The caller's own token, when it authenticated with one. */
    private Optional<AclToken> self(ApiRequest r) {
        Identity caller = r.identity();
        if (caller.kind() != Identity.Kind.TOKEN) {
            return Optional.empty();
        }
        return store.snapshot().get(NomadTables.ACL_TOKENS, caller.id());
    }

    // ---- policies

    private CompletionStage<ApiResponse> listPolicies(ApiRequest r) {
        requireEnabled();
        Set<String> visible = visiblePolicies(r);
        String prefix = r.options().prefix();
        return reads.query(r, (s, ws) -> {
            ws.table(NomadTables.ACL_POLICIES.name());
            return new Indexed<>(s.all(NomadTables.ACL_POLICIES)
                    .filter(p -> visible == null || visible.contains(p.name()))
                    .filter(p -> prefix == null || p.name().startsWith(prefix))
                    .map(AclPolicy::stub).toList(), s.tableIndex(NomadTables.ACL_POLICIES.name()));
        });
    }

    private CompletionStage<ApiResponse> getPolicy(ApiRequest r) {
        requireEnabled();
        String name = r.pathParam("name");
        Set<String> visible = visiblePolicies(r);
        if (visible != null && !visible.contains(name)) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
        }
        return reads.one(r, NomadTables.ACL_POLICIES, name, "ACL policy not found");
    }

    /** The policies the caller holds (through its token and roles, or the anonymous policy); null: all (management). */
    private Set<String> visiblePolicies(ApiRequest r) {
        Identity caller = r.identity();
        if (caller.acl().isManagement()) {
            return null;
        }
        StateSnapshot s = store.snapshot();
        Set<String> names = new LinkedHashSet<>();
        Optional<AclToken> token = self(r);
        if (token.isEmpty()) {
            names.add(ServerAclResolver.ANONYMOUS_POLICY);
            return names;
        }
        names.addAll(token.get().policies());
        for (AclToken.RoleLink link : token.get().roles()) {
            s.get(NomadTables.ACL_ROLES, link.id()).ifPresent(role ->
                    role.policies().forEach(p -> names.add(p.name())));
        }
        return names;
    }

    private CompletionStage<ApiResponse> upsertPolicy(ApiRequest r) {
        requireEnabled();
        String name = r.pathParam("name");
        AclPolicy body = r.body(AclPolicy.class);
        if (body == null) {
            throw CaravanException.badRequest("missing policy");
        }
        if (body.name() != null && !body.name().isEmpty() && !body.name().equals(name)) {
            throw CaravanException.badRequest("Policy name does not match request path");
        }
        checkName(name, "Name");
        checkDescription(body.description());
        if (body.rules() == null || body.rules().isBlank()) {
            throw CaravanException.invalid("Rules", "missing policy rules");
        }
        compiler.check(body.rules());   // a 400 naming line:column and the problem
        AclPolicy policy = new AclPolicy(name, body.description() == null ? "" : body.description(), body.rules(),
                jobAcl(body.jobAcl()), 0, 0);
        return writes.submit(new Command.AclPolicyUpsert(List.of(policy)))
                .thenApply(result -> new ApiResponse(200, null, QueryMeta.index(result.index())));
    }

    /**
     * Nomad's rules for a policy's {@code JobACL}: a job ID to attach to, a task only with its group; the namespace
     * defaults to {@code default}. Null (no attachment) when absent or empty.
     */
    static AclPolicy.JobAcl jobAcl(AclPolicy.JobAcl acl) {
        if (acl == null || blank(acl.namespace()) && blank(acl.jobId()) && blank(acl.group()) && blank(acl.task())) {
            return null;
        }
        if (blank(acl.jobId())) {
            throw CaravanException.invalid("JobACL.JobID", "a job-attached policy needs the job ID");
        }
        if (blank(acl.group()) && !blank(acl.task())) {
            throw CaravanException.invalid("JobACL.Task", "a task can only be given with its group");
        }
        return new AclPolicy.JobAcl(blank(acl.namespace()) ? "default" : acl.namespace(), acl.jobId(),
                blank(acl.group()) ? "" : acl.group(), blank(acl.task()) ? "" : acl.task());
    }

    private static boolean blank(String s) {
        return s == null || s.isEmpty();
    }

    private CompletionStage<ApiResponse> deletePolicy(ApiRequest r) {
        return delete(r, new Command.AclPolicyDelete(List.of(r.pathParam("name"))));
    }

    private CompletionStage<ApiResponse> delete(ApiRequest r, Command command) {
        requireEnabled();
        return writes.submit(command).thenApply(result -> new ApiResponse(200, null, QueryMeta.index(result.index())));
    }

    // ---- tokens

    private CompletionStage<ApiResponse> getToken(ApiRequest r) {
        requireEnabled();
        String accessor = r.pathParam("accessor");
        if (!r.identity().acl().isManagement() && !accessor.equals(r.identity().id())) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
        }
        return reads.one(r, NomadTables.ACL_TOKENS, accessor, "ACL token not found");
    }

    /** What a create or update sends: Nomad's ACLToken, of which the caller sets only some fields. */
    record TokenRequest(String accessorId, String name, String type, List<String> policies,
                        List<AclToken.RoleLink> roles, Boolean global, @GoTime Instant expirationTime,
                        @NanoDuration Duration expirationTtl) {}

    private CompletionStage<ApiResponse> upsertToken(ApiRequest r, String accessor) {
        requireEnabled();
        TokenRequest body = r.body(TokenRequest.class);
        if (body == null) {
            throw CaravanException.badRequest("missing token");
        }
        StateSnapshot s = store.snapshot();
        if (accessor != null && body.accessorId() != null && !body.accessorId().isEmpty()
                && !body.accessorId().equals(accessor)) {
            throw CaravanException.badRequest("Token AccessorID does not match request path");
        }
        Optional<AclToken> existing = accessor == null ? Optional.empty() : s.get(NomadTables.ACL_TOKENS, accessor);
        if (accessor != null) {
            if (existing.isEmpty()) {
                throw new CaravanException(ErrorCode.NOT_FOUND, "ACL token not found");
            }
        }
        AclToken token = buildToken(s, body, existing.orElse(null), clock.instant());
        return writes.submit(new Command.AclTokenUpsert(List.of(token))).thenApply(result -> {
            long create = existing.map(AclToken::createIndex).orElse(result.index());
            return ApiResponse.ok(token.withIndexes(create, result.index()), QueryMeta.index(result.index()));
        });
    }

    /** Validates a create or update as Nomad does and builds the token to store. */
    AclToken buildToken(StateSnapshot s, TokenRequest body, AclToken existing, Instant now) {
        String type = body.type() == null || body.type().isEmpty()
                ? existing == null ? AclToken.CLIENT : existing.type() : body.type();
        if (!type.equals(AclToken.CLIENT) && !type.equals(AclToken.MANAGEMENT)) {
            throw CaravanException.invalid("Type", "token type must be client or management, got \"" + type + "\"");
        }
        if (existing != null && !existing.type().equals(type)) {
            throw CaravanException.invalid("Type", "cannot change the type of a token");
        }
        String name = body.name() == null ? "" : body.name();
        if (name.length() > 256) {
            throw CaravanException.invalid("Name", "longer than 256 characters");
        }
        List<String> policies = body.policies() == null ? List.of()
                : List.copyOf(new LinkedHashSet<>(body.policies()));
        List<AclToken.RoleLink> roles = resolveRoles(s, body.roles());
        if (type.equals(AclToken.MANAGEMENT) && (!policies.isEmpty() || !roles.isEmpty())) {
            throw CaravanException.invalid("Policies", "management tokens cannot be associated with policies or roles");
        }
        if (type.equals(AclToken.CLIENT) && policies.isEmpty() && roles.isEmpty()) {
            throw CaravanException.invalid("Policies", "client token missing policies or roles");
        }
        for (String policy : policies) {
            if (s.get(NomadTables.ACL_POLICIES, policy).isEmpty()) {
                throw CaravanException.invalid("Policies", "cannot find policy " + policy);
            }
        }
        boolean global = body.global() != null ? body.global() : existing != null && existing.global();
        if (existing != null) {
            return new AclToken(existing.accessorId(), existing.secretId(), name, type, policies, roles, global,
                    existing.createTime(), existing.expirationTime(), existing.expirationTtl(), 0, 0);
        }
        Instant expires = expiration(body, now);
        return new AclToken(UUID.randomUUID().toString(), UUID.randomUUID().toString(), name, type, policies, roles,
                global, now, expires, body.expirationTtl(), 0, 0);
    }

    /** When a new token expires: from its TTL or its time, within the agent's {@code token_*_expiration_ttl}. */
    private Instant expiration(TokenRequest body, Instant now) {
        Duration ttl = body.expirationTtl();
        Instant at = body.expirationTime();
        if (ttl != null && !ttl.isZero() && at != null) {
            throw CaravanException.invalid("ExpirationTTL", "cannot set both ExpirationTTL and ExpirationTime");
        }
        if (ttl != null && ttl.isNegative()) {
            throw CaravanException.invalid("ExpirationTTL", "must not be negative");
        }
        if (ttl != null && !ttl.isZero()) {
            at = now.plus(ttl);
        }
        if (at == null) {
            return null;
        }
        Duration min = Duration.ofMillis(config.acl_token_min_ttl_ms());
        Duration max = Duration.ofMillis(config.acl_token_max_ttl_ms());
        if (at.isBefore(now.plus(min))) {
            throw CaravanException.invalid("ExpirationTTL", "expiration time cannot be less than "
                    + GoDuration.format(min) + " in the future");
        }
        if (at.isAfter(now.plus(max))) {
            throw CaravanException.invalid("ExpirationTTL", "expiration time cannot be more than "
                    + GoDuration.format(max) + " in the future");
        }
        return at;
    }

    /** A token's roles, named by ID or by name; each must exist. */
    private static List<AclToken.RoleLink> resolveRoles(StateSnapshot s, List<AclToken.RoleLink> links) {
        List<AclToken.RoleLink> out = new ArrayList<>();
        for (AclToken.RoleLink link : links == null ? List.<AclToken.RoleLink>of() : links) {
            Optional<AclRole> role = link.id() != null && !link.id().isEmpty()
                    ? s.get(NomadTables.ACL_ROLES, link.id())
                    : s.byIndex(NomadTables.ACL_ROLES, "name", link.name() == null ? "" : link.name()).findFirst();
            AclRole found = role.orElseThrow(() -> CaravanException.invalid("Roles", "cannot find role "
                    + (link.id() != null && !link.id().isEmpty() ? link.id() : link.name())));
            if (out.stream().noneMatch(l -> l.id().equals(found.id()))) {
                out.add(new AclToken.RoleLink(found.id(), found.name()));
            }
        }
        return out;
    }

    // ---- roles

    private CompletionStage<ApiResponse> listRoles(ApiRequest r) {
        requireEnabled();
        Set<String> visible = visibleRoles(r);
        String prefix = r.options().prefix();
        return reads.query(r, (s, ws) -> {
            ws.table(NomadTables.ACL_ROLES.name());
            return new Indexed<>(s.all(NomadTables.ACL_ROLES)
                    .filter(role -> visible == null || visible.contains(role.id()))
                    .filter(role -> prefix == null || role.id().startsWith(prefix))
                    .sorted(Comparator.comparing(AclRole::name)).toList(),
                    s.tableIndex(NomadTables.ACL_ROLES.name()));
        });
    }

    /** The role IDs the caller's token holds; null: all (management). */
    private Set<String> visibleRoles(ApiRequest r) {
        if (r.identity().acl().isManagement()) {
            return null;
        }
        Set<String> ids = new LinkedHashSet<>();
        self(r).ifPresent(token -> token.roles().forEach(link -> ids.add(link.id())));
        return ids;
    }

    @FunctionalInterface
    private interface RoleLookup {
        Optional<AclRole> find(StateSnapshot s, String key);
    }

    private CompletionStage<ApiResponse> getRole(ApiRequest r, RoleLookup lookup, String key) {
        requireEnabled();
        Set<String> visible = visibleRoles(r);
        return reads.query(r, (s, ws) -> {
            ws.table(NomadTables.ACL_ROLES.name());
            return new Indexed<>(lookup.find(s, key), s.tableIndex(NomadTables.ACL_ROLES.name()));
        }).thenApply(answer -> {
            Optional<?> found = (Optional<?>) answer.body();
            // A caller that may not see every role learns nothing about roles it does not hold, not even whether
            // they exist.
            if (visible != null && (found.isEmpty() || !visible.contains(((AclRole) found.get()).id()))) {
                throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
            }
            if (found.isEmpty()) {
                throw new CaravanException(ErrorCode.NOT_FOUND, "ACL role not found");
            }
            AclRole role = (AclRole) found.get();
            return new ApiResponse(200, role, answer.meta());
        });
    }

    private CompletionStage<ApiResponse> upsertRole(ApiRequest r, String id) {
        requireEnabled();
        AclRole body = r.body(AclRole.class);
        if (body == null) {
            throw CaravanException.badRequest("missing role");
        }
        if (id != null && body.id() != null && !body.id().isEmpty() && !body.id().equals(id)) {
            throw CaravanException.badRequest("Role ID does not match request path");
        }
        StateSnapshot s = store.snapshot();
        Optional<AclRole> existing = id == null ? Optional.empty() : s.get(NomadTables.ACL_ROLES, id);
        if (id != null && existing.isEmpty()) {
            throw new CaravanException(ErrorCode.NOT_FOUND, "ACL role not found");
        }
        checkName(body.name(), "Name");
        checkDescription(body.description());
        if (body.policies().isEmpty()) {
            throw CaravanException.invalid("Policies", "at least one policy must be specified");
        }
        List<AclRole.PolicyLink> policies = new ArrayList<>();
        for (AclRole.PolicyLink link : body.policies()) {
            if (link == null || link.name() == null || s.get(NomadTables.ACL_POLICIES, link.name()).isEmpty()) {
                throw CaravanException.invalid("Policies", "cannot find policy "
                        + (link == null ? null : link.name()));
            }
            if (!policies.contains(link)) {
                policies.add(link);
            }
        }
        String roleId = id != null ? id : UUID.randomUUID().toString();
        AclRole role = new AclRole(roleId, body.name(), body.description() == null ? "" : body.description(),
                policies, 0, 0);
        return writes.submit(new Command.AclRoleUpsert(List.of(role))).thenApply(result -> {
            long create = existing.map(AclRole::createIndex).orElse(result.index());
            return ApiResponse.ok(role.withIndexes(create, result.index()), QueryMeta.index(result.index()));
        });
    }

    private static void checkName(String name, String field) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw CaravanException.invalid(field, "invalid name \"" + name
                    + "\": 1 to 128 letters, digits and dashes");
        }
    }

    private static void checkDescription(String description) {
        if (description != null && description.length() > MAX_DESCRIPTION) {
            throw CaravanException.invalid("Description", "longer than " + MAX_DESCRIPTION + " characters");
        }
    }

    private static boolean isUuid(String s) {
        return s.matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    }
}
