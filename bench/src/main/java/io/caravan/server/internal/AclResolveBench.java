package io.caravan.server.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import io.caravan.acl.AclPolicies;
import io.caravan.acl.PolicyRules;
import io.caravan.acl.internal.PolicyCompilerService;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.AclPolicy;
import io.caravan.api.acl.AclRole;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.AclToken;
import io.caravan.api.acl.Identity;

/**
 * Issue 13's hot-path target (≤ 5 µs to resolve a token and check a rule): what the API servlet does per request,
 * {@link ServerAclResolver#resolve} of the {@code X-Nomad-Token} secret and then {@link AclRule#allows}, on a real
 * {@link ServerState} whose ACL tables were written through the FSM, with the acl bundle's real policy compiler.
 * Warm cases hit the resolver's caches; "after a token write" and "after a policy write" apply one ACL write through
 * the FSM before every timed call (the write is not timed), so the call re-reads the token, or re-reads it and
 * recompiles its policies (a cold compile). Also the public API of the acl bundle alone: parse + compile + check.
 *
 * <p>JMH is not in the offline repository, so this is a plain harness: a warm-up, then {@code rounds} rounds, each
 * timing a batch of calls (warm) or each call (cold); it prints the median, min and max of the rounds' ns per call.
 * In this package (a split package on the class path, bench only) because the resolver is the server bundle's
 * internal.
 *
 * <pre>java -cp "$CP" io.caravan.server.internal.AclResolveBench [rounds] [ms per round] [only cases containing]</pre>
 */
public final class AclResolveBench {
    /** The rule of {@code GET /v1/job/:id}. */
    private static final AclRule READ_JOB = AclRule.namespace("read-job");
    private static final String READONLY = "namespace \"default\" { policy = \"read\" }";
    private static final String OPS = """
            namespace "dev-*" { capabilities = ["submit-job", "read-logs", "alloc-exec"] }
            namespace "prod" { policy = "read" }
            node { policy = "read" }
            agent { policy = "read" }
            host_volume "shared-*" { policy = "read" }
            """;

    private static volatile long sink;
    /** Runs only the cases whose name contains this (to profile one case alone). */
    private static String only = "";

    private final ServerState state = new ServerState();
    private final ServerAclResolver resolver;
    private long index = 1;
    private long writes;

    private AclResolveBench() {
        resolver = new ServerAclResolver(state.store(), new PolicyCompilerService(), Clock.systemUTC());
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        long roundMs = args.length > 1 ? Long.parseLong(args[1]) : 300;
        only = args.length > 2 ? args[2] : "";
        System.out.printf(Locale.ROOT, "machine: %d cores, %s %s; %d rounds of ~%d ms, warm-up 3 s per case%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"), rounds, roundMs);
        AclResolveBench b = new AclResolveBench();
        String reader = b.token("reader", AclToken.CLIENT, List.of("readonly"), List.of());
        String ops = b.token("ops", AclToken.CLIENT, List.of("readonly"), List.of(new AclToken.RoleLink("r1", "ops")));
        String management = b.token("root", AclToken.MANAGEMENT, List.of(), List.of());
        b.policy("readonly", READONLY);
        b.policy("ops", OPS);
        b.policy("churn", READONLY);
        b.apply(new Command.AclRoleUpsert(List.of(new AclRole("r1", "ops", "", List.of(new AclRole.PolicyLink("ops")),
                0, 0))));

        b.warm("warm: client token, 1 policy, allowed", reader, "default", true, rounds, roundMs);
        b.warm("warm: client token, 2 policies + role, allowed", ops, "default", true, rounds, roundMs);
        b.warm("warm: client token, denied (other namespace)", reader, "other", false, rounds, roundMs);
        b.warm("warm: management token", management, "default", true, rounds, roundMs);
        b.warm("warm: anonymous (no anonymous policy)", null, "default", false, rounds, roundMs);
        Identity identity = b.resolver.resolve(ops);
        report("rule check only (AclRule.allows, resolved identity)", rounds, roundMs, n -> {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += READ_JOB.allows(identity, "default") ? 1 : 0;
            }
            return System.nanoTime() - t0;
        });
        b.afterWrite("after a token write: token re-read, compiled policies reused", ops, false, rounds, roundMs);
        b.afterWrite("after a policy write: token re-read + cold compile (2 policies)", ops, true, rounds, roundMs);

        List<String> rules = List.of(READONLY, OPS);
        report("acl bundle API: AclPolicies.parse x2 + compile + allowNamespace", rounds, roundMs, n -> {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                List<PolicyRules> parsed = new ArrayList<>(2);
                rules.forEach(r -> parsed.add(AclPolicies.parse(r)));
                Acl acl = AclPolicies.compile(parsed);
                sink += acl.allowNamespace("dev-web", "submit-job") ? 1 : 0;
            }
            return System.nanoTime() - t0;
        });
        List<PolicyRules> parsed = rules.stream().map(AclPolicies::parse).toList();
        report("acl bundle API: AclPolicies.compile (parsed) + allowNamespace", rounds, roundMs, n -> {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += AclPolicies.compile(parsed).allowNamespace("dev-web", "submit-job") ? 1 : 0;
            }
            return System.nanoTime() - t0;
        });
        Acl compiled = AclPolicies.compile(parsed);
        report("acl bundle API: allowNamespace on a compiled Acl (glob match)", rounds, roundMs, n -> {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += compiled.allowNamespace("dev-web", "submit-job") ? 1 : 0;
            }
            return System.nanoTime() - t0;
        });
        System.out.println("ACL writes applied during the run: " + b.writes + " (sink " + (sink & 1) + ")");
        b.state.deactivate();
    }

    /** Times {@code n} calls and answers the nanoseconds they took. */
    private interface Batch {
        long run(int n);
    }

    /** resolve + check with the caches warm: the request path between ACL writes. */
    private void warm(String name, String secret, String namespace, boolean expect, int rounds, long roundMs) {
        if (check(secret, namespace) != expect) {
            throw new IllegalStateException(name + ": expected allows = " + expect);
        }
        report(name, rounds, roundMs, n -> {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += check(secret, namespace) ? 1 : 0;
            }
            return System.nanoTime() - t0;
        });
    }

    /** One ACL write through the FSM (not timed), then one timed resolve + check, {@code n} times. */
    private void afterWrite(String name, String secret, boolean policyWrite, int rounds, long roundMs) {
        report(name, rounds, roundMs, n -> {
            long total = 0;
            for (int i = 0; i < n; i++) {
                if (policyWrite) {
                    policy("churn", READONLY); // an unrelated policy: the policies table's index moves
                } else {
                    token("churn", AclToken.CLIENT, List.of("readonly"), List.of());
                }
                long t0 = System.nanoTime();
                sink += check(secret, "default") ? 1 : 0;
                total += System.nanoTime() - t0;
            }
            return total;
        });
    }

    private boolean check(String secret, String namespace) {
        return READ_JOB.allows(resolver.resolve(secret), namespace);
    }

    /**
     * Warms up for 3 s, sizes a batch to about {@code roundMs} of wall time (the untimed writes of the cold cases
     * included), then prints the median, min and max ns per call over {@code rounds} batches.
     */
    private static void report(String name, int rounds, long roundMs, Batch batch) {
        if (!name.contains(only)) {
            return;
        }
        int n = 64;
        long warmEnd = System.nanoTime() + 3_000_000_000L;
        long took = 0;
        while (System.nanoTime() < warmEnd) {
            long t0 = System.nanoTime();
            batch.run(n);
            took = System.nanoTime() - t0;
            if (took < roundMs * 1_000_000L / 4 && n < (1 << 26)) {
                n *= 2;
            }
        }
        int perRound = (int) Math.max(16, n * (roundMs * 1e6 / Math.max(1, took)));
        double[] ns = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            ns[r] = (double) batch.run(perRound) / perRound;
        }
        Arrays.sort(ns);
        System.out.printf(Locale.ROOT, "%-66s %,12.0f ns/call median (min %,.0f, max %,.0f; %,d calls a round)%n",
                name, ns[rounds / 2], ns[0], ns[rounds - 1], perRound);
    }

    private String token(String name, String type, List<String> policies, List<AclToken.RoleLink> roles) {
        String secret = UUID.nameUUIDFromBytes(("secret-" + name).getBytes()).toString();
        String accessor = UUID.nameUUIDFromBytes(("accessor-" + name).getBytes()).toString();
        apply(new Command.AclTokenUpsert(List.of(new AclToken(accessor, secret, name, type, policies, roles, false,
                Instant.EPOCH, null, null, 0, 0))));
        return secret;
    }

    private void policy(String name, String rules) {
        apply(new Command.AclPolicyUpsert(List.of(new AclPolicy(name, "", rules, 0, 0))));
    }

    private void apply(Command command) {
        Command.Result result = CommandCodec.decodeResult(state.apply(index, 1_000_000 + index,
                CommandCodec.encode(null, command)));
        if (result.errorCode() != 0) {
            throw new IllegalStateException(result.error());
        }
        index++;
        writes++;
    }
}
