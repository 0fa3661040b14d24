package io.caravan.agent.internal;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Writes the translated configurations into Config Admin. Only a PID whose translation changed since this agent
 * last wrote it is touched, so an edit made directly in Config Admin (web console, {@code etc/<pid>.cfg}) stays
 * until the agent's own configuration for that PID changes; {@code updateIfDifferent} then spares components an
 * update that changes nothing. PIDs the agent wrote before and no longer wants are deleted (a server turned off
 * loses {@code io.caravan.server}).
 */
final class ConfigApplier {
    private final ConfigurationAdmin configAdmin;
    private final Map<String, Map<String, Object>> written = new HashMap<>();

    ConfigApplier(ConfigurationAdmin configAdmin) {
        this.configAdmin = configAdmin;
    }

    /** @return the PIDs whose configuration changed */
    synchronized Set<String> apply(Map<String, Map<String, Object>> pids) throws IOException {
        Set<String> changed = new HashSet<>();
        for (Map.Entry<String, Map<String, Object>> e : pids.entrySet()) {
            Map<String, Object> before = written.get(e.getKey());
            if (before != null && same(before, e.getValue())) {
                continue;
            }
            if (configuration(e.getKey()).updateIfDifferent(new Hashtable<>(e.getValue()))) {
                changed.add(e.getKey());
            }
            written.put(e.getKey(), Map.copyOf(e.getValue()));
        }
        for (String stale : new HashSet<>(written.keySet())) {
            if (!pids.containsKey(stale)) {
                configuration(stale).delete();
                written.remove(stale);
                changed.add(stale);
            }
        }
        return changed;
    }

    /** Equal properties, comparing array values by content (Config Admin's lists are arrays). */
    static boolean same(Map<String, Object> a, Map<String, Object> b) {
        return a.keySet().equals(b.keySet())
                && a.keySet().stream().allMatch(k -> Objects.deepEquals(a.get(k), b.get(k)));
    }

    private Configuration configuration(String pid) throws IOException {
        int tilde = pid.indexOf('~');
        // "?" binds the configuration to whichever bundle asks for it first (multi-location).
        return tilde < 0 ? configAdmin.getConfiguration(pid, "?")
                : configAdmin.getFactoryConfiguration(pid.substring(0, tilde), pid.substring(tilde + 1), "?");
    }
}
