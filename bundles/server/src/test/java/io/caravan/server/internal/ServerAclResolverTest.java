package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.caravan.acl.internal.PolicyCompilerService;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.AclPolicy;
import io.caravan.api.acl.AclRole;
import io.caravan.api.acl.AclToken;
import io.caravan.api.acl.Identity;
import io.caravan.api.acl.Scope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The server's resolver on the real FSM and the real policy language, with an injected clock: what a secret
 * resolves to, Nomad's 403 texts, the anonymous policy, and that its caches follow every ACL write (a rewritten
 * policy, a deleted token, a role's policies) while an unchanged state answers from the cache.
 */
class ServerAclResolverTest {
    private static final String READ = "namespace \"default\" { policy = \"read\" }";
    private static final String WRITE = "namespace \"default\" { policy = \"write\" }";
    private static final String NODE_READ = "node { policy = \"read\" }";

    private final ServerState state = new ServerState();
    private final RaftWrites writes = JobLimitsTest.writes(state, new AtomicLong());
    private final EvalBrokerTest.MutableClock clock = new EvalBrokerTest.MutableClock();
    private final ServerAclResolver resolver = new ServerAclResolver(state.store(), new PolicyCompilerService(), clock);

    @AfterEach
    void stop() {
        state.deactivate();
    }

    private void write(Command command) throws Exception {
        Command.Result result = writes.submit(command).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(0, result.errorCode(), result.error());
    }

    private void policy(String name, String rules) throws Exception {
        write(new Command.AclPolicyUpsert(List.of(new AclPolicy(name, "", rules, 0, 0))));
    }

    private AclToken token(String accessor, List<String> policies, List<AclToken.RoleLink> roles, Instant expires)
            throws Exception {
        AclToken token = new AclToken(accessor, "secret-" + accessor, "name-" + accessor, AclToken.CLIENT, policies,
                roles, false, clock.instant(), expires, null, 0, 0);
        write(new Command.AclTokenUpsert(List.of(token)));
        return token;
    }

    private void role(String id, String... policies) throws Exception {
        write(new Command.AclRoleUpsert(List.of(new AclRole(id, "role-" + id, "",
                List.of(policies).stream().map(AclRole.PolicyLink::new).toList(), 0, 0))));
    }

    private CaravanException refused(String secret) {
        return assertThrows(CaravanException.class, () -> resolver.resolve(secret));
    }

    private static boolean reads(Acl acl) {
        return acl.allowNamespace("default", "read-job");
    }

    private static boolean submits(Acl acl) {
        return acl.allowNamespace("default", "submit-job");
    }

    @Test
    void aTokenResolvesToItsAccessorAndItsPoliciesCapabilities() throws Exception {
        policy("readonly", READ);
        token("a", List.of("readonly"), List.of(), null);

        Identity identity = resolver.resolve("secret-a");
        assertEquals(Identity.Kind.TOKEN, identity.kind());
        assertEquals("a", identity.id());
        assertEquals("name-a", identity.name());
        assertFalse(identity.acl().isManagement());
        assertTrue(reads(identity.acl()));
        assertFalse(submits(identity.acl()));
        assertSame(identity, resolver.resolve("secret-a"), "nothing changed: answered from the cache");
    }

    @Test
    void aManagementTokenMayDoEverything() throws Exception {
        write(new Command.AclTokenUpsert(List.of(new AclToken("m", "secret-m", "boss", AclToken.MANAGEMENT, List.of(),
                List.of(), true, clock.instant(), null, null, 0, 0))));
        Acl acl = resolver.resolve("secret-m").acl();
        assertTrue(acl.isManagement());
        assertTrue(submits(acl));
    }

    @Test
    void anExpiredTokenIsRefusedWhetherCachedOrNot() throws Exception {
        policy("readonly", READ);
        token("soon", List.of("readonly"), List.of(), clock.instant().plus(Duration.ofMinutes(10)));
        token("past", List.of("readonly"), List.of(), clock.instant().minus(Duration.ofSeconds(1)));

        assertTrue(reads(resolver.resolve("secret-soon").acl()));   // now cached
        clock.advance(Duration.ofMinutes(10).minusMillis(1));
        assertTrue(reads(resolver.resolve("secret-soon").acl()), "valid until its expiration time");
        clock.advance(Duration.ofMillis(1));
        CaravanException cached = refused("secret-soon");
        assertEquals(ErrorCode.PERMISSION_DENIED, cached.code());
        assertEquals("ACL token expired", cached.getMessage());

        CaravanException fresh = refused("secret-past");
        assertEquals(ErrorCode.PERMISSION_DENIED, fresh.code());
        assertEquals("ACL token expired", fresh.getMessage());
    }

    @Test
    void anUnknownSecretIsRefused() throws Exception {
        policy("readonly", READ);
        token("a", List.of("readonly"), List.of(), null);
        CaravanException e = refused("2d3a6b8e-0000-4000-8000-000000000000");
        assertEquals(ErrorCode.PERMISSION_DENIED, e.code());
        assertEquals("ACL token not found", e.getMessage());
        assertEquals("ACL token not found", refused("a").getMessage(), "an accessor ID is not a secret");
    }

    @Test
    void anonymousHoldsTheAnonymousPolicyWhenItExistsAndNothingOtherwise() throws Exception {
        policy("readonly", READ);
        for (String none : new String[] {null, ""}) {
            Identity anonymous = resolver.resolve(none);
            assertEquals(Identity.Kind.ANONYMOUS, anonymous.kind());
            assertFalse(reads(anonymous.acl()), "no anonymous policy: nothing");
            assertFalse(anonymous.acl().allowAnyNamespace("list-jobs"));
        }

        policy(ServerAclResolver.ANONYMOUS_POLICY, READ);
        assertTrue(reads(resolver.resolve(null).acl()));
        assertTrue(reads(resolver.resolve("").acl()));
        assertFalse(submits(resolver.resolve(null).acl()));

        write(new Command.AclPolicyDelete(List.of(ServerAclResolver.ANONYMOUS_POLICY)));
        assertFalse(reads(resolver.resolve(null).acl()), "deleted again: nothing");
    }

    @Test
    void rewritingAPolicyChangesTheCapabilitiesOfTokensHoldingIt() throws Exception {
        policy("ops", READ);
        token("a", List.of("ops"), List.of(), null);
        assertFalse(submits(resolver.resolve("secret-a").acl()));   // cached, with the old rules

        policy("ops", WRITE);
        assertTrue(submits(resolver.resolve("secret-a").acl()), "the rewritten policy counts at once");

        write(new Command.AclPolicyDelete(List.of("ops")));
        Acl none = resolver.resolve("secret-a").acl();
        assertFalse(reads(none), "a deleted policy grants nothing");
    }

    @Test
    void aDeletedTokenIsNotFoundAtOnce() throws Exception {
        policy("readonly", READ);
        token("a", List.of("readonly"), List.of(), null);
        token("b", List.of("readonly"), List.of(), null);
        assertTrue(reads(resolver.resolve("secret-a").acl()));   // cached
        assertTrue(reads(resolver.resolve("secret-b").acl()));

        write(new Command.AclTokenDelete(List.of("a")));
        assertEquals("ACL token not found", refused("secret-a").getMessage());
        assertTrue(reads(resolver.resolve("secret-b").acl()), "the other token is untouched");
    }

    @Test
    void aRolesPoliciesCountWithTheTokensOwn() throws Exception {
        policy("readonly", READ);
        policy("writer", WRITE);
        policy("nodes", NODE_READ);
        role("r1", "readonly");
        token("by-role", List.of(), List.of(new AclToken.RoleLink("r1", "role-r1")), null);
        token("both", List.of("nodes"), List.of(new AclToken.RoleLink("r1", "role-r1")), null);

        Acl byRole = resolver.resolve("secret-by-role").acl();
        assertTrue(reads(byRole));
        assertFalse(submits(byRole));
        Acl both = resolver.resolve("secret-both").acl();
        assertTrue(reads(both), "from the role");
        assertTrue(both.allow(Scope.NODE, Access.READ), "the token's own");

        role("r1", "writer");   // the role now holds another policy
        assertTrue(submits(resolver.resolve("secret-by-role").acl()));

        write(new Command.AclRoleDelete(List.of("r1")));
        assertFalse(reads(resolver.resolve("secret-by-role").acl()), "a deleted role grants nothing");
        assertTrue(resolver.resolve("secret-both").acl().allow(Scope.NODE, Access.READ));
    }
}
