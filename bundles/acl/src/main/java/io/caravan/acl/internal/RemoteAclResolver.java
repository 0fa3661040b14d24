package io.caravan.acl.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.AclResolver;
import io.caravan.api.acl.AclToken;
import io.caravan.api.acl.Identity;
import io.caravan.api.acl.PolicyCompiler;
import io.caravan.api.acl.ResolvedToken;
import io.caravan.rpc.Rpc;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Resolves secrets on an agent without the ACL tables (a client-only agent): asks a server
 * ({@value ResolvedToken#METHOD}), compiles the rules it gets, and keeps the answer for the {@code acl} block's
 * {@code token_ttl} (Nomad's default 30 s): a token revoked on the servers may work here that long, as in Nomad.
 * The agent writes this component's configuration only on client-only agents (servers resolve from their own tables).
 */
@Component(service = AclResolver.class, configurationPid = "io.caravan.acl.remote",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = RemoteAclResolver.Config.class)
public final class RemoteAclResolver implements AclResolver {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_CACHED = 10_000;

    @ObjectClassDefinition(name = "Caravan ACL (client-only agents)")
    @interface Config {
        long token_ttl_ms() default 30_000;
    }

    private record Cached(Identity identity, Instant expires, Instant fetched) {}

    private final Rpc rpc;
    private final PolicyCompiler compiler;
    private final Clock clock = Clock.systemUTC();
    private final Map<String, Cached> bySecret = new ConcurrentHashMap<>();
    private volatile Duration ttl;

    @Activate
    public RemoteAclResolver(@Reference Rpc rpc, @Reference PolicyCompiler compiler, Config config) {
        this.rpc = rpc;
        this.compiler = compiler;
        modified(config);
    }

    @Modified
    void modified(Config config) {
        this.ttl = Duration.ofMillis(config.token_ttl_ms());
        bySecret.clear();
    }

    @Override
    public Identity resolve(String secret) {
        String key = secret == null ? "" : secret;
        Instant now = clock.instant();
        Cached cached = bySecret.get(key);
        if (cached == null || now.isAfter(cached.fetched().plus(ttl))) {
            cached = fetch(key, now);
        }
        if (cached.expires() != null && !now.isBefore(cached.expires())) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "ACL token expired");
        }
        return cached.identity();
    }

    private Cached fetch(String secret, Instant now) {
        ResolvedToken token;
        try {
            token = rpc.call(ResolvedToken.METHOD, new ResolvedToken.Request(secret), ResolvedToken.class)
                    .toCompletableFuture().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CaravanException(ErrorCode.INTERNAL, "interrupted while resolving the ACL token");
        } catch (ExecutionException | CompletionException e) {
            throw e.getCause() instanceof CaravanException c ? c
                    : new CaravanException(ErrorCode.INTERNAL, "resolving the ACL token failed: " + e.getCause());
        } catch (TimeoutException e) {
            throw new CaravanException(ErrorCode.NO_LEADER, "No servers answered to resolve the ACL token");
        }
        Acl acl = AclToken.MANAGEMENT.equals(token.type()) ? Acl.MANAGEMENT
                : token.rules().isEmpty() ? Acl.NONE : compiler.compile(token.rules());
        Identity identity = secret.isEmpty() ? Identity.anonymous(acl)
                : new Identity(Identity.Kind.TOKEN, token.accessorId(), token.name(), acl);
        Cached cached = new Cached(identity, token.expirationTime(), now);
        if (bySecret.size() >= MAX_CACHED) {
            bySecret.clear();
        }
        bySecret.put(secret, cached);
        return cached;
    }
}
