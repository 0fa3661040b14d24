package io.caravan.server.internal;

import java.time.Clock;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclRule;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.QueryMeta;
import io.caravan.http.RouteTable;
import io.caravan.server.internal.Keyring.RootKey;
import io.caravan.state.Indexed;
import io.caravan.state.StateStore;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;

/**
 * Nomad's {@code /v1/operator/keyring/*} (management, as Nomad's docs say) and the public discovery documents
 * {@code /.well-known/jwks.json} and {@code /.well-known/openid-configuration} (the latter only with
 * {@code server.oidc_issuer} set, as in Nomad).
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class KeyringRoutes implements ApiRoutes {
    static final ApiEndpoint LIST = ApiEndpoint.of("Keyring.List", AclRule.MANAGEMENT);
    static final ApiEndpoint ROTATE = ApiEndpoint.of("Keyring.Rotate", AclRule.MANAGEMENT).onLeader();
    static final ApiEndpoint DELETE = ApiEndpoint.of("Keyring.Delete", AclRule.MANAGEMENT).onLeader();
    static final ApiEndpoint JWKS = ApiEndpoint.of("Keyring.ListPublic", AclRule.PUBLIC);
    static final ApiEndpoint OIDC = ApiEndpoint.of("Keyring.GetConfig", AclRule.PUBLIC);

    /** The server block's {@code oidc_issuer}: the issuer third parties are told, and put in every JWT. */
    @interface Config {
        String oidc_issuer() default "";
    }

    private final StateStore store;
    private final StateReads reads;
    private final RaftWrites writes;
    private final KeyringService keyring;
    private final Clock clock;
    private volatile Config config;

    @Activate
    public KeyringRoutes(@Reference ServerState state, @Reference RaftWrites writes,
                         @Reference KeyringService keyring, Config config) {
        this(state.store(), writes, keyring, config, Clock.systemUTC());
    }

    KeyringRoutes(StateStore store, RaftWrites writes, KeyringService keyring, Config config, Clock clock) {
        this.store = store;
        this.reads = new StateReads(store, writes);
        this.writes = writes;
        this.keyring = keyring;
        this.config = config;
        this.clock = clock;
    }

    @Modified
    void modified(Config changed) {
        this.config = changed;
    }

    @Override
    public void register(RouteTable routes) {
        routes.getAsync("/v1/operator/keyring/keys", LIST, r -> reads.query(r, (s, ws) -> {
                    ws.table(Keyring.ROOT_KEYS.name());
                    return new Indexed<>(s.all(Keyring.ROOT_KEYS).sorted(Comparator.comparingLong(RootKey::createIndex))
                            .map(RootKey::meta).toList(), s.tableIndex(Keyring.ROOT_KEYS.name()));
                }))
                .writeAsync("/v1/operator/keyring/rotate", ROTATE, this::rotate)
                .deleteAsync("/v1/operator/keyring/key/{id}", DELETE, this::delete)
                .get("/.well-known/jwks.json", JWKS, r -> ApiResponse.ok(keyring.jwks()))
                .get("/.well-known/openid-configuration", OIDC, this::openidConfiguration);
    }

    /** Nomad's {@code KeyringRotateRootKeyResponse}. */
    record RotateResponse(Keyring.RootKeyMeta key) {}

    private CompletionStage<ApiResponse> rotate(ApiRequest r) {
        // full: the replaced key turns rekeying and the leader re-encrypts every variable (KeyringDuties#rekey).
        boolean full = r.query("full").map(Boolean::parseBoolean).orElse(false);
        // Accepted only as no-ops would be silent lies: say what we do not do.
        if (r.query("prepublish").filter(p -> !p.isEmpty()).isPresent()) {
            throw CaravanException.invalid("prepublish", "prepublished keys are not supported");
        }
        String algorithm = r.query("algo").or(() -> r.query("algorithm")).orElse(Keyring.ALGORITHM);
        if (!algorithm.isEmpty() && !Keyring.ALGORITHM.equals(algorithm)) {
            throw CaravanException.invalid("algorithm", "must be " + Keyring.ALGORITHM);
        }
        RootKey key = Keyring.row(Keyring.generate(), clock.millis() * 1_000_000L,
                store.snapshot().all(Keyring.KEYSTORES).toList());
        return writes.submit(new Command.RootKeyUpsert(key, full)).thenApply(result -> ApiResponse.ok(
                new RotateResponse(key.withIndexes(result.index(), result.index()).meta()),
                QueryMeta.index(result.index())));
    }

    private CompletionStage<ApiResponse> delete(ApiRequest r) {
        String id = r.pathParam("id");
        if (r.query("force").map(Boolean::parseBoolean).orElse(false)) {
            throw CaravanException.invalid("force", "removing the active key is not supported; rotate first");
        }
        return writes.submit(new Command.RootKeyDelete(id)).thenApply(result -> ApiResponse.ok(Map.of(),
                QueryMeta.index(result.index())));
    }

    private ApiResponse openidConfiguration(ApiRequest r) {
        String issuer = config.oidc_issuer();
        if (issuer.isEmpty()) {
            throw new CaravanException(ErrorCode.NOT_FOUND, "OIDC discovery is not enabled: set server.oidc_issuer");
        }
        String base = issuer.endsWith("/") ? issuer.substring(0, issuer.length() - 1) : issuer;
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("issuer", issuer);
        doc.put("jwks_uri", base + "/.well-known/jwks.json");
        doc.put("id_token_signing_alg_values_supported", List.of(KeyringService.RS256, KeyringService.EDDSA));
        doc.put("response_types_supported", List.of("code"));
        doc.put("subject_types_supported", List.of("public"));
        return ApiResponse.ok(doc);
    }
}
