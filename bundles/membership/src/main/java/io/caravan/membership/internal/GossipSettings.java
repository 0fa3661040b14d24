package io.caravan.membership.internal;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

import io.caravan.membership.Membership;

/**
 * What one {@link Gossip} needs.
 *
 * @param name the member name ({@code <node name>.<region>})
 * @param bind {@code host:port} the serf listener binds; port 0 picks a free one
 * @param advertise {@code host:port} told to others; null or blank: the bind address; port 0: the bound port
 * @param tags this member's tags
 * @param encrypt base64 gossip key, or null/blank for none
 * @param gossipInterval time between gossip rounds (each bumps our incarnation and exchanges with one member)
 * @param suspectTimeout how long a member's incarnation may stand still before it is FAILED here
 * @param reapAfter how long a LEFT or FAILED member stays listed
 * @param httpTimeout connect and request timeout of one exchange
 */
public record GossipSettings(String name, String bind, String advertise, Map<String, String> tags, String encrypt,
        Duration gossipInterval, Duration suspectTimeout, Duration reapAfter, Duration httpTimeout) {

    public static final Duration DEFAULT_GOSSIP_INTERVAL = Duration.ofMillis(500);
    public static final Duration DEFAULT_SUSPECT_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_REAP_AFTER = Duration.ofHours(24);
    public static final Duration DEFAULT_HTTP_TIMEOUT = Duration.ofSeconds(2);

    public GossipSettings {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(bind, "bind");
        tags = tags == null ? Map.of() : Map.copyOf(tags);
        gossipInterval = positive(gossipInterval, DEFAULT_GOSSIP_INTERVAL);
        suspectTimeout = positive(suspectTimeout, DEFAULT_SUSPECT_TIMEOUT);
        reapAfter = positive(reapAfter, DEFAULT_REAP_AFTER);
        httpTimeout = positive(httpTimeout, DEFAULT_HTTP_TIMEOUT);
    }

    /** Defaults everywhere but the name and bind address; no tags, no key. */
    public static GossipSettings of(String name, String bind) {
        return new GossipSettings(name, bind, null, Map.of(), null, null, null, null, null);
    }

    public GossipSettings withAdvertise(String value) {
        return new GossipSettings(name, bind, value, tags, encrypt, gossipInterval, suspectTimeout, reapAfter, httpTimeout);
    }

    public GossipSettings withTags(Map<String, String> value) {
        return new GossipSettings(name, bind, advertise, value, encrypt, gossipInterval, suspectTimeout, reapAfter, httpTimeout);
    }

    public GossipSettings withEncrypt(String value) {
        return new GossipSettings(name, bind, advertise, tags, value, gossipInterval, suspectTimeout, reapAfter, httpTimeout);
    }

    public GossipSettings withGossipInterval(Duration value) {
        return new GossipSettings(name, bind, advertise, tags, encrypt, value, suspectTimeout, reapAfter, httpTimeout);
    }

    public GossipSettings withSuspectTimeout(Duration value) {
        return new GossipSettings(name, bind, advertise, tags, encrypt, gossipInterval, value, reapAfter, httpTimeout);
    }

    public GossipSettings withReapAfter(Duration value) {
        return new GossipSettings(name, bind, advertise, tags, encrypt, gossipInterval, suspectTimeout, value, httpTimeout);
    }

    public GossipSettings withHttpTimeout(Duration value) {
        return new GossipSettings(name, bind, advertise, tags, encrypt, gossipInterval, suspectTimeout, reapAfter, value);
    }

    HostPort bindAddress() {
        return HostPort.parse(bind, Membership.DEFAULT_PORT);
    }

    private static Duration positive(Duration d, Duration fallback) {
        return d == null || d.isZero() || d.isNegative() ? fallback : d;
    }
}
