package io.caravan.agent.internal;

import java.io.IOException;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.Map;
import java.util.Set;

import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Writes the translated configurations into Config Admin with {@code updateIfDifferent}, so only components whose
 * settings changed hear about it, and deletes the configurations it wrote before that are no longer wanted (a
 * server turned off on reload loses {@code io.caravan.server}).
 */
final class ConfigApplier {
    private final ConfigurationAdmin configAdmin;
    private final Set<String> owned = new HashSet<>();

    ConfigApplier(ConfigurationAdmin configAdmin) {
        this.configAdmin = configAdmin;
    }

    /** @return the PIDs whose configuration changed */
    synchronized Set<String> apply(Map<String, Map<String, Object>> pids) throws IOException {
        Set<String> changed = new HashSet<>();
        for (Map.Entry<String, Map<String, Object>> e : pids.entrySet()) {
            if (configuration(e.getKey()).updateIfDifferent(new Hashtable<>(e.getValue()))) {
                changed.add(e.getKey());
            }
        }
        for (String stale : new HashSet<>(owned)) {
            if (!pids.containsKey(stale)) {
                configuration(stale).delete();
                owned.remove(stale);
                changed.add(stale);
            }
        }
        owned.addAll(pids.keySet());
        return changed;
    }

    private Configuration configuration(String pid) throws IOException {
        int tilde = pid.indexOf('~');
        // "?" binds the configuration to whichever bundle asks for it first (multi-location).
        return tilde < 0 ? configAdmin.getConfiguration(pid, "?")
                : configAdmin.getFactoryConfiguration(pid.substring(0, tilde), pid.substring(tilde + 1), "?");
    }
}
