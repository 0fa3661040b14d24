package io.caravan.server.internal;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.Access;
import io.caravan.api.acl.Acl;
import io.caravan.api.acl.Capability;
import io.caravan.api.acl.Scope;

/**
 * What one subscriber of the event stream sees: its {@code topic=Topic:Key} parameters (a topic alone, or the key
 * {@code *}, takes every key; a key matches an event's {@code Key} or one of its {@code FilterKeys}), its namespace
 * ({@code *} for all) and, with ACLs on, what its token may read: each topic is checked once when subscribing (Nomad's
 * rules per topic; a topic not allowed is a 403) and namespaced events are checked per namespace when the subscriber
 * asked for all of them.
 */
final class EventFilter {
    /**
     * Topics Nomad has that Caravan has no objects for yet: accepted (a tool subscribing to them keeps working) but
     * silent.
     */
    static final List<String> SILENT_TOPICS = List.of("NodePool", "HostVolume", "CSIVolume", "CSIPlugin", "Operator",
            "Variable");

    private final Map<String, Set<String>> keysByTopic;
    private final String namespace;
    private final Acl acl;

    private EventFilter(Map<String, Set<String>> keysByTopic, String namespace, Acl acl) {
        this.keysByTopic = keysByTopic;
        this.namespace = namespace;
        this.acl = acl;
    }

    /**
     * Parses and authorises a subscription; no topic means every topic, as in Nomad (which needs a management token).
     *
     * @throws CaravanException 400 for a malformed or unknown topic, 403 for a topic the token may not read
     */
    static EventFilter of(List<String> topicParams, String namespace, Acl acl) {
        Map<String, Set<String>> topics = new HashMap<>();
        if (topicParams.isEmpty()) {
            topics.put(Events.ALL, Set.of(Events.ALL));
        }
        for (String param : topicParams) {
            int colon = param.indexOf(':');
            String topic = colon < 0 ? param : param.substring(0, colon);
            String key = colon < 0 ? Events.ALL : param.substring(colon + 1);
            if (topic.isEmpty() || key.isEmpty()) {
                throw CaravanException.invalid("topic", "invalid topic " + quote(param)
                        + ": write Topic or Topic:Key, e.g. Job:* or Allocation:<id>");
            }
            if (!topic.equals(Events.ALL) && !Events.TOPICS.contains(topic) && !SILENT_TOPICS.contains(topic)) {
                throw CaravanException.invalid("topic", "unknown topic " + quote(topic) + "; known: * "
                        + String.join(" ", Events.TOPICS) + " " + String.join(" ", SILENT_TOPICS));
            }
            topics.computeIfAbsent(topic, t -> new HashSet<>()).add(key);
        }
        for (String topic : topics.keySet()) {
            if (!allowed(topic, namespace, acl)) {
                throw new CaravanException(ErrorCode.PERMISSION_DENIED, "Permission denied");
            }
        }
        return new EventFilter(Map.copyOf(topics), namespace, acl);
    }

    /** Nomad's rule for subscribing to {@code topic} in {@code namespace} ({@code *}: some namespace grants it). */
    static boolean allowed(String topic, String namespace, Acl acl) {
        switch (topic) {
            case Events.JOB, Events.ALLOCATION, Events.EVALUATION, Events.DEPLOYMENT, Events.SERVICE, "CSIPlugin":
                return namespaced(acl, namespace, Capability.READ_JOB);
            case "CSIVolume":
                return namespaced(acl, namespace, Capability.CSI_READ_VOLUME);
            case "HostVolume":
                return namespaced(acl, namespace, Capability.HOST_VOLUME_READ);
            case Events.NODE:
                return acl.allow(Scope.NODE, Access.READ);
            case "Operator":
                return acl.allow(Scope.OPERATOR, Access.READ);
            case "Variable":
                return "*".equals(namespace) ? acl.isManagement() : acl.allowVariableSearch(namespace);
            default: // *, NodePool and the ACL topics
                return acl.isManagement();
        }
    }

    private static boolean namespaced(Acl acl, String namespace, String capability) {
        return "*".equals(namespace) ? acl.allowAnyNamespace(capability) : acl.allowNamespace(namespace, capability);
    }

    /** Whether this subscriber gets {@code event}. */
    boolean matches(Events.Event event) {
        Set<String> keys = keysByTopic.get(event.topic());
        Set<String> any = keysByTopic.get(Events.ALL);
        if (!matchesKey(keys, event) && !matchesKey(any, event)) {
            return false;
        }
        String ns = event.namespace();
        if (ns.isEmpty()) {
            return true;
        }
        if (!"*".equals(namespace)) {
            return ns.equals(namespace);
        }
        // All namespaces asked for: the token may read some of them only.
        return acl.isManagement() || acl.allowNamespace(ns, Capability.READ_JOB);
    }

    private static boolean matchesKey(Set<String> keys, Events.Event event) {
        if (keys == null) {
            return false;
        }
        if (keys.contains(Events.ALL) || keys.contains(event.key())) {
            return true;
        }
        if (event.filterKeys() != null) {
            for (String k : event.filterKeys()) {
                if (keys.contains(k)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }
}
