package io.caravan.server.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.api.CaravanException;
import io.caravan.api.GoDuration;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.AclRule;
import io.caravan.api.acl.Scope;
import io.caravan.api.json.NomadJson;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiRequest;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import io.caravan.http.RouteTable;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nomad 1.11's client introduction tokens (NOMAD-REFERENCE §4): {@code PUT/POST
 * /v1/acl/identity/client-introduction-token} signs a short-lived JWT, bound to a node pool and optionally a node
 * name, that a new client presents on its first registration. TTL: the request's, else the server's
 * {@code client_introduction.default_identity_ttl}, capped at {@code max_identity_ttl} (logged, not an error).
 */
@Component(service = ApiRoutes.class, configurationPid = "io.caravan.server.introduction",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class ClientIntroRoutes implements ApiRoutes {
    private static final Logger LOG = LoggerFactory.getLogger(ClientIntroRoutes.class);
    static final String PATH = "/v1/acl/identity/client-introduction-token";
    static final ApiEndpoint CREATE = ApiEndpoint.of("ACL.CreateClientIntroductionToken",
            AclRule.scope(Scope.NODE, Access.WRITE));
    private static final String DEFAULT_POOL = "default";

    /** The server's region and its {@code client_introduction} TTLs (Nomad's defaults), from PID
     * {@code io.caravan.server.introduction}. */
    @interface Config {
        String region() default "global";

        String client_introduction_default_identity_ttl() default "5m";

        String client_introduction_max_identity_ttl() default "30m";
    }

    private final KeyringService keyring;
    private volatile Config config;

    @Activate
    public ClientIntroRoutes(@Reference KeyringService keyring, Config config) {
        this.keyring = keyring;
        this.config = config;
    }

    @Modified
    void modified(Config changed) {
        this.config = changed;
    }

    @Override
    public void register(RouteTable routes) {
        routes.write(PATH, CREATE, this::create);
    }

    /** Nomad's reply: the signed token. */
    record IntroToken(@com.fasterxml.jackson.annotation.JsonProperty("JWT") String jwt) {}

    ApiResponse create(ApiRequest r) {
        String name = "";
        String pool = "";
        Duration ttl = Duration.ZERO;
        if (r.rawBody().length > 0) {
            JsonNode body;
            try {
                body = NomadJson.mapper().readTree(r.rawBody());
            } catch (java.io.IOException e) {
                throw CaravanException.badRequest("invalid request body: " + e.getMessage());
            }
            name = text(body, "NodeName");
            pool = text(body, "NodePool");
            JsonNode t = body.path("TTL");
            try {
                ttl = t.isNumber() ? Duration.ofNanos(t.asLong()) : t.isTextual() && !t.asText().isEmpty()
                        ? GoDuration.parse(t.asText()) : Duration.ZERO;
            } catch (IllegalArgumentException e) {
                throw CaravanException.invalid("TTL", e.getMessage());
            }
            if (ttl.isNegative()) {
                throw CaravanException.invalid("TTL", "must not be negative");
            }
        }
        Config c = config;
        Duration max = GoDuration.parse(c.client_introduction_max_identity_ttl());
        if (ttl.isZero()) {
            ttl = GoDuration.parse(c.client_introduction_default_identity_ttl());
        }
        if (ttl.compareTo(max) > 0) {
            LOG.atInfo().addKeyValue("requested", GoDuration.format(ttl)).addKeyValue("max", GoDuration.format(max))
                    .log("client introduction token TTL capped at max_identity_ttl");
            ttl = max;
        }
        if (pool.isEmpty()) {
            pool = DEFAULT_POOL;
        }
        long now = keyring.clock().millis() / 1000;
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("aud", List.of(WorkloadIdentities.DEFAULT_AUDIENCE));
        claims.put("jti", UUID.randomUUID().toString());
        claims.put("iat", now);
        claims.put("nbf", now);
        claims.put("exp", now + ttl.toSeconds());
        claims.put("sub", String.join(":", "node-introduction", c.region(), pool, name, "default"));
        claims.put("nomad_node_pool", pool);
        if (!name.isEmpty()) {
            claims.put("nomad_node_name", name);
        }
        try {
            return ApiResponse.ok(new IntroToken(keyring.sign(claims)));
        } catch (IllegalStateException e) {
            throw CaravanException.badRequest("cannot sign: " + e.getMessage());
        }
    }

    private static String text(JsonNode body, String field) {
        JsonNode v = body.path(field);
        if (v.isMissingNode() || v.isNull()) {
            return "";
        }
        if (!v.isTextual()) {
            throw CaravanException.invalid(field, "must be a string");
        }
        return v.asText();
    }
}
