package io.caravan.server.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.model.Node;
import io.caravan.metrics.MetricSink;
import io.caravan.metrics.MetricSource;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Nomad 1.11's client introduction on the server (NOMAD-REFERENCE §4): whether a node the servers do not know yet
 * may register, by {@code server.client_introduction.enforcement}, and the node identities registered nodes get.
 *
 * <p>{@code none} admits every node, silently. Otherwise a node is introduced by a token the keyring signed, valid
 * now, whose claims fit it: a client introduction token for the node's pool and, when it names one, the node's name;
 * or a node identity of that very node (a node the servers forgot comes back). Any other registration counts in
 * {@code nomad.client.introduction_violation_num} and is logged with the reason; {@code warn} admits it (WARN),
 * {@code strict} refuses it (ERROR, {@code PERMISSION_DENIED}). The mode follows the configuration live.
 * Tokens are never logged.
 */
@Component(service = {ClientIntroduction.class, MetricSource.class},
        configurationPid = "io.caravan.server.introduction", configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = ClientIntroduction.Config.class)
public final class ClientIntroduction implements MetricSource {
    private static final Logger LOG = LoggerFactory.getLogger(ClientIntroduction.class);
    static final String VIOLATIONS = "nomad.client.introduction_violation_num";
    static final String VIOLATIONS_DOCUMENTED = "nomad.client.introduction.enforcement";
    static final String NO_TOKEN = "node registration without introduction token";
    static final String AUTH_FAILURE = "node registration introduction authentication failure";
    static final String MISMATCH = "node registration introduction claims mismatch";
    /** Nomad's default {@code node_identity_ttl} of a node pool. */
    static final Duration NODE_IDENTITY_TTL = Duration.ofHours(24);
    static final String INTRO_SUBJECT = "node-introduction:";
    static final String NODE_SUBJECT = "node:";

    /** {@code server.client_introduction.enforcement}. */
    enum Enforcement { NONE, WARN, STRICT;

        /** Unset is Nomad's default, {@code warn}; a value the agent let through unchecked fails closed. */
        static Enforcement of(String value) {
            if (value == null || value.isBlank()) {
                return WARN;
            }
            try {
                return valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                return STRICT;
            }
        }

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What this component reads from PID {@code io.caravan.server.introduction} (Nomad's defaults). */
    @ObjectClassDefinition(name = "Caravan server: client introduction")
    @interface Config {
        String region() default "global";

        String client_introduction_enforcement() default "warn";
    }

    private final KeyringService keyring;
    private final AtomicLong violations = new AtomicLong();
    /** When the identity last signed for each node expires (epoch seconds), so heartbeats renew it in time. */
    private final Map<String, Long> identityExpiry = new ConcurrentHashMap<>();
    private volatile Enforcement enforcement;
    private volatile String region;

    @Activate
    public ClientIntroduction(@Reference KeyringService keyring, Config config) {
        this.keyring = keyring;
        modified(config);
    }

    @Modified
    void modified(Config config) {
        Enforcement before = enforcement;
        enforcement = Enforcement.of(config.client_introduction_enforcement());
        region = config.region();
        if (before != null && before != enforcement) {
            LOG.atInfo().addKeyValue("enforcement", enforcement.label()).log("client introduction enforcement changed");
        }
    }

    Enforcement enforcement() {
        return enforcement;
    }

    /**
     * Admits or refuses a node the servers do not know yet, presenting {@code token} (empty: none).
     *
     * @throws CaravanException {@code PERMISSION_DENIED} when {@code strict} refuses it
     */
    void admit(Node node, String token) {
        Enforcement level = enforcement;
        if (level == Enforcement.NONE) {
            return;
        }
        String pool = node.nodePool() == null || node.nodePool().isEmpty() ? Node.DEFAULT_POOL : node.nodePool();
        Map<String, Object> claims = new LinkedHashMap<>();
        String message;
        String reason;
        if (token == null || token.isBlank()) {
            message = NO_TOKEN;
            reason = "no introduction token";
        } else {
            Optional<Map<String, Object>> signed = keyring.verifySignature(token.trim());
            Optional<String> problem = signed.isEmpty() ? Optional.of("not signed by this cluster's keyring")
                    : keyring.timeProblem(signed.get()).map(p -> "token " + p);
            if (problem.isPresent()) {
                message = AUTH_FAILURE;
                reason = problem.get();
            } else {
                claims = signed.get();
                Optional<String> mismatch = mismatch(claims, node, pool);
                if (mismatch.isEmpty()) {
                    return;
                }
                message = MISMATCH;
                reason = mismatch.get();
            }
        }
        violations.incrementAndGet();
        LoggingEventBuilder log = level == Enforcement.STRICT ? LOG.atError() : LOG.atWarn();
        log = log.addKeyValue("enforcement_level", level.label()).addKeyValue("node_id", node.id())
                .addKeyValue("node_pool", pool).addKeyValue("node_name", node.name()).addKeyValue("reason", reason);
        if (claims.get("nomad_node_pool") instanceof String claimPool) {
            log = log.addKeyValue("claim_node_pool", claimPool);
        }
        if (claims.get("nomad_node_name") instanceof String claimName && !claimName.isEmpty()) {
            log = log.addKeyValue("claim_node_name", claimName);
        }
        log.log(message);
        if (level == Enforcement.STRICT) {
            throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied: " + message + " ("
                    + reason + "); server.client_introduction.enforcement is strict");
        }
    }

    /** Why verified claims do not introduce this node; empty when they do. */
    Optional<String> mismatch(Map<String, Object> claims, Node node, String pool) {
        String sub = claims.get("sub") instanceof String s ? s : "";
        if (sub.startsWith(INTRO_SUBJECT)) {
            String[] parts = sub.split(":", -1);
            if (parts.length > 1 && !parts[1].equals(region)) {
                return Optional.of("token is for region " + parts[1] + ", not " + region);
            }
            Object claimPool = claims.get("nomad_node_pool");
            if (!pool.equals(claimPool)) {
                return Optional.of("token is for node pool " + claimPool + ", not " + pool);
            }
            Object claimName = claims.get("nomad_node_name");
            if (claimName instanceof String name && !name.isEmpty() && !name.equals(node.name())) {
                return Optional.of("token is for node " + name + ", not " + node.name());
            }
            return Optional.empty();
        }
        if (sub.startsWith(NODE_SUBJECT)) {
            return node.id().equals(claims.get("nomad_node_id")) ? Optional.empty()
                    : Optional.of("node identity of another node");
        }
        return Optional.of("not a client introduction token");
    }

    /**
     * A node identity for this node when it needs one: at registration always, at a heartbeat when this server has
     * not signed one yet or the last has less than a third of its lifetime left (Nomad renews then). Empty when no
     * identity is due or the keyring cannot sign yet (the SecretID still authenticates the node).
     */
    Optional<String> identityFor(Node node, boolean registering) {
        long now = keyring.clock().millis() / 1000;
        Long expiry = identityExpiry.get(node.id());
        long ttl = NODE_IDENTITY_TTL.toSeconds();
        if (!registering && expiry != null && expiry - now > ttl / 3) {
            return Optional.empty();
        }
        String pool = node.nodePool() == null || node.nodePool().isEmpty() ? Node.DEFAULT_POOL : node.nodePool();
        Map<String, Object> claims = new LinkedHashMap<>();
        claims.put("aud", List.of(WorkloadIdentities.DEFAULT_AUDIENCE));
        claims.put("jti", UUID.randomUUID().toString());
        claims.put("iat", now);
        claims.put("nbf", now);
        claims.put("exp", now + ttl);
        claims.put("sub", String.join(":", "node", region, pool, node.id(), "default"));
        claims.put("nomad_node_id", node.id());
        claims.put("nomad_node_pool", pool);
        claims.put("nomad_node_class", node.nodeClass() == null ? "" : node.nodeClass());
        claims.put("nomad_node_datacenter", node.datacenter());
        try {
            String jwt = keyring.sign(claims);
            identityExpiry.put(node.id(), now + ttl);
            return Optional.of(jwt);
        } catch (IllegalStateException e) {
            LOG.atDebug().addKeyValue("node_id", node.id()).addKeyValue("error", e.getMessage())
                    .log("no node identity signed");
            return Optional.empty();
        }
    }

    /** The violations counted so far ({@code nomad.client.introduction_violation_num}). */
    long violations() {
        return violations.get();
    }

    @Override
    public void sample(MetricSink sink) {
        long n = violations.get();
        if (n > 0) {
            sink.counter(VIOLATIONS, Map.of(), n);
            // the name Nomad's client-introduction guide tells operators to monitor; the same count
            sink.counter(VIOLATIONS_DOCUMENTED, Map.of(), n);
        }
    }
}
