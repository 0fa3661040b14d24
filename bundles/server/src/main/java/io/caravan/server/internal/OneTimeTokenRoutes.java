package io.caravan.server.internal;

import java.time.Clock;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.AclToken;
import io.caravan.api.acl.Identity;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.QueryMeta;
import io.caravan.http.RouteTable;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's {@code /v1/acl/token/onetime} (a caller with a token gets a one-time secret standing for it, valid
 * {@link OneTimeTokens#TTL}) and {@code /v1/acl/token/onetime/exchange} (anyone holding the secret gets the token,
 * once).
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class OneTimeTokenRoutes implements ApiRoutes {
    static final ApiEndpoint UPSERT = ApiEndpoint.of("ACL.UpsertOneTimeToken", AclRule.AUTHENTICATED).onLeader();
    static final ApiEndpoint EXCHANGE = ApiEndpoint.of("ACL.ExchangeOneTimeToken", AclRule.PUBLIC).onLeader();

    private final StateStore store;
    private final RaftWrites writes;
    private final Clock clock;
    private volatile AclConfig config;

    @Activate
    public OneTimeTokenRoutes(@Reference ServerState state, @Reference RaftWrites writes, AclConfig config) {
        this(state.store(), writes, config, Clock.systemUTC());
    }

    OneTimeTokenRoutes(StateStore store, RaftWrites writes, AclConfig config, Clock clock) {
        this.store = store;
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
        routes.writeAsync("/v1/acl/token/onetime", UPSERT, this::upsert)
                .writeAsync("/v1/acl/token/onetime/exchange", EXCHANGE, this::exchange);
    }

    /** Nomad's {@code OneTimeTokenUpsertResponse} and {@code OneTimeTokenExchangeResponse}. */
    record Created(OneTimeTokens.OneTimeToken oneTimeToken) {}

    record ExchangeRequest(String oneTimeSecretId) {}

    record Exchanged(AclToken token) {}

    private void requireEnabled() {
        if (!config.acl_enabled()) {
            throw CaravanException.badRequest("ACL support disabled");
        }
    }

    private CompletionStage<ApiResponse> upsert(ApiRequest r) {
        requireEnabled();
        Identity caller = r.identity();
        if (caller.kind() != Identity.Kind.TOKEN) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
        }
        OneTimeTokens.OneTimeToken token = new OneTimeTokens.OneTimeToken(UUID.randomUUID().toString(), caller.id(),
                clock.instant().plus(OneTimeTokens.TTL), 0, 0);
        return writes.submit(new Command.OneTimeTokenUpsert(token)).thenApply(result -> ApiResponse.ok(
                new Created(token.withIndexes(result.index(), result.index())), QueryMeta.index(result.index())));
    }

    private CompletionStage<ApiResponse> exchange(ApiRequest r) {
        requireEnabled();
        ExchangeRequest body = r.body(ExchangeRequest.class);
        if (body == null || body.oneTimeSecretId() == null || body.oneTimeSecretId().isBlank()) {
            throw CaravanException.invalid("OneTimeSecretID", "missing");
        }
        Optional<OneTimeTokens.OneTimeToken> found = store.snapshot().get(OneTimeTokens.TABLE,
                body.oneTimeSecretId());
        if (found.isEmpty()) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
        }
        String accessor = found.get().accessorId();
        return writes.submit(new Command.OneTimeTokenExchange(body.oneTimeSecretId(), clock.millis()))
                .thenApply(result -> {
                    AclToken token = store.snapshot().get(NomadTables.ACL_TOKENS, accessor).orElseThrow(() ->
                            new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied"));
                    return ApiResponse.ok(new Exchanged(token), QueryMeta.index(result.index()));
                });
    }
}
