package io.caravan.server.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.AclResolver;
import io.caravan.api.acl.AclToken;
import io.caravan.api.acl.Identity;
import io.caravan.api.acl.PolicyCompiler;
import io.caravan.api.acl.ResolvedToken;
import io.caravan.rpc.Endpoint;
import io.caravan.rpc.EndpointProvider;
import io.caravan.state.StateSnapshot;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Resolves secrets on a server, from the replicated ACL tables. Hot path: one snapshot, the ACL tables' indexes, one
 * map lookup. A resolved token is kept until any ACL table changes (or it expires); compiled policies are kept per
 * set of policy names until the policies or roles change, so many tokens with the same policies share one compiled
 * {@link Acl}.
 */
@Component(service = {AclResolver.class, EndpointProvider.class}, property = "service.ranking:Integer=10")
public final class ServerAclResolver implements AclResolver, EndpointProvider {
    /** Nomad's policy for calls without a token: whatever a policy of this name grants (nothing when absent). */
    static final String ANONYMOUS_POLICY = "anonymous";
    /** Beyond this many cached secrets the cache starts over (a flood of distinct secrets must not grow memory). */
    private static final int MAX_CACHED = 10_000;

    private record Resolved(long aclIndex, Identity identity, Instant expires) {}

    private record Compiled(long policyIndex, Acl acl) {}

    private final StateStore store;
    private final PolicyCompiler compiler;
    private final Clock clock;
    private final Map<String, Resolved> bySecret = new ConcurrentHashMap<>();
    private final Map<List<String>, Compiled> byPolicies = new ConcurrentHashMap<>();
    /** Verifies workload identities; absent (JWTs refused) until this server's keyring is up. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile KeyringService keyring;

    @Activate
    public ServerAclResolver(@Reference ServerState state, @Reference PolicyCompiler compiler) {
        this(state.store(), compiler, Clock.systemUTC());
    }

    ServerAclResolver(StateStore store, PolicyCompiler compiler, Clock clock) {
        this.store = store;
        this.compiler = compiler;
        this.clock = clock;
    }

    @Override
    public Identity resolve(String secret) {
        StateSnapshot s = store.snapshot();
        if (secret == null || secret.isEmpty()) {
            return Identity.anonymous(acl(s, List.of(ANONYMOUS_POLICY)));
        }
        if (isJwt(secret)) {
            return workload(s, secret);
        }
        long aclIndex = aclIndex(s);
        Instant now = clock.instant();
        Resolved cached = bySecret.get(secret);
        if (cached != null && cached.aclIndex() == aclIndex) {
            if (cached.expires() != null && !now.isBefore(cached.expires())) {
                throw expired();
            }
            return cached.identity();
        }
        AclToken token = s.byIndex(NomadTables.ACL_TOKENS, "secret", secret).findFirst()
                .orElseThrow(() -> new CaravanException(ErrorCode.PERMISSION_DENIED, "ACL token not found"));
        if (token.expired(now)) {
            throw expired();
        }
        Acl acl = token.isManagement() ? Acl.MANAGEMENT : acl(s, policyNames(s, token));
        Identity identity = new Identity(Identity.Kind.TOKEN, token.accessorId(), token.name(), acl);
        if (bySecret.size() >= MAX_CACHED) {
            bySecret.clear();
        }
        bySecret.put(secret, new Resolved(aclIndex, identity, token.expirationTime()));
        return identity;
    }

    /**
     * {@value ResolvedToken#METHOD}: client agents resolve secrets through a server, and compile and cache what they
     * get (the rules, never the token's secret).
     */
    @Override
    public List<Endpoint<?, ?>> endpoints() {
        return List.of(new Endpoint<>(ResolvedToken.METHOD, ResolvedToken.Request.class, ResolvedToken.class,
                Endpoint.Routing.LOCAL, request -> {
                    try {
                        return CompletableFuture.completedFuture(lookup(request.secretId()));
                    } catch (CaravanException e) {
                        return CompletableFuture.failedFuture(e);
                    }
                }));
    }

    /** The token behind a secret and the rules of its policies (the anonymous policy's for an empty secret). */
    ResolvedToken lookup(String secret) {
        StateSnapshot s = store.snapshot();
        if (secret == null || secret.isEmpty()) {
            return new ResolvedToken("", "anonymous", AclToken.CLIENT, rules(s, List.of(ANONYMOUS_POLICY)), null);
        }
        if (isJwt(secret)) {
            WorkloadIdentities.Claims c = workloadClaims(s, secret);
            return new ResolvedToken("", "workload:" + c.subject(), AclToken.CLIENT, workloadRules(s, c), null);
        }
        AclToken token = s.byIndex(NomadTables.ACL_TOKENS, "secret", secret).findFirst()
                .orElseThrow(() -> new CaravanException(ErrorCode.PERMISSION_DENIED, "ACL token not found"));
        if (token.expired(clock.instant())) {
            throw expired();
        }
        return new ResolvedToken(token.accessorId(), token.name(), token.type(),
                token.isManagement() ? List.of() : rules(s, policyNames(s, token)), token.expirationTime());
    }

    /** Nomad's order: a secret that is not a UUID is checked as a JWT against the keyring. */
    private static boolean isJwt(String secret) {
        return secret.chars().filter(ch -> ch == '.').count() == 2;
    }

    /**
     * A workload identity: verified by the keyring, its allocation live, with Nomad's implicit policy and the policies
     * attached to its job (not cached: an allocation may stop at any moment, and checking the signature is cheap next
     * to a request).
     */
    private Identity workload(StateSnapshot s, String jwt) {
        WorkloadIdentities.Claims c = workloadClaims(s, jwt);
        return new Identity(Identity.Kind.TOKEN, c.allocationId() + "/" + c.task(), "workload:" + c.subject(),
                compiler.compile(workloadRules(s, c)));
    }

    /** Nomad's implicit policy of a workload, and the rules of the policies attached to its job, group or task. */
    private static List<String> workloadRules(StateSnapshot s, WorkloadIdentities.Claims c) {
        String group = group(s, c);
        List<String> rules = new ArrayList<>();
        rules.add(WorkloadIdentities.implicitPolicy(c, group));
        s.all(NomadTables.ACL_POLICIES).filter(p -> p.jobAcl() != null
                        && p.jobAcl().matches(c.namespace(), c.jobId(), group, c.task()))
                .forEach(p -> rules.add(p.rules()));
        return rules;
    }

    private WorkloadIdentities.Claims workloadClaims(StateSnapshot s, String jwt) {
        KeyringService verifier = keyring;
        return Optional.ofNullable(verifier).flatMap(k -> k.verify(jwt))
                .flatMap(claims -> WorkloadIdentities.workload(s, claims))
                .orElseThrow(() -> new CaravanException(ErrorCode.PERMISSION_DENIED, "ACL token not found"));
    }

    private static String group(StateSnapshot s, WorkloadIdentities.Claims c) {
        return s.get(NomadTables.ALLOCS, c.allocationId()).map(a -> a.taskGroup()).orElse("");
    }

    private static List<String> rules(StateSnapshot s, List<String> names) {
        List<String> rules = new ArrayList<>(names.size());
        for (String name : names) {
            s.get(NomadTables.ACL_POLICIES, name).ifPresent(p -> rules.add(p.rules()));
        }
        return rules;
    }

    private static CaravanException expired() {
        return new CaravanException(ErrorCode.PERMISSION_DENIED, "ACL token expired");
    }

    /** The token's policies and its roles' policies, sorted: the key of the compiled ACL. */
    private static List<String> policyNames(StateSnapshot s, AclToken token) {
        TreeSet<String> names = new TreeSet<>(token.policies());
        for (AclToken.RoleLink link : token.roles()) {
            s.get(NomadTables.ACL_ROLES, link.id()).ifPresent(role -> role.policies().forEach(p -> names.add(p.name())));
        }
        return List.copyOf(names);
    }

    /** The compiled ACL of these policies (a missing one grants nothing), reused until policies or roles change. */
    private Acl acl(StateSnapshot s, List<String> names) {
        long policyIndex = Math.max(s.tableIndex(NomadTables.ACL_POLICIES.name()),
                s.tableIndex(NomadTables.ACL_ROLES.name()));
        Compiled cached = byPolicies.get(names);
        if (cached != null && cached.policyIndex() == policyIndex) {
            return cached.acl();
        }
        List<String> rules = rules(s, names);
        Acl acl = rules.isEmpty() ? Acl.NONE : compiler.compile(rules);
        if (byPolicies.size() >= MAX_CACHED) {
            byPolicies.clear();
        }
        byPolicies.put(names, new Compiled(policyIndex, acl));
        return acl;
    }

    private static long aclIndex(StateSnapshot s) {
        long index = 0;
        for (var table : NomadTables.ACL) {
            index = Math.max(index, s.tableIndex(table.name()));
        }
        return index;
    }
}
