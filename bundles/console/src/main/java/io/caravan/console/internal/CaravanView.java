package io.caravan.console.internal;

import java.util.List;
import java.util.Map;

/**
 * What the "Caravan" console page shows, and {@code caravan.json} returns: the agent, the cluster as this agent sees
 * it, its node, its plugin bundles and its last reload. A part that could not be read says why in {@code problems}.
 */
record CaravanView(Agent agent, String leader, List<Peer> peers, NodeState node, List<Plugin> drivers,
                   List<Plugin> fingerprinters, Reload lastReload, Map<String, String> problems) {

    /** @param role {@code server}, {@code client} or {@code server+client} */
    record Agent(String name, String role, String region, String datacenter, String version, String nodeId,
                 boolean devMode) {}

    record Peer(String id, String node, String address, boolean leader, boolean voter) {}

    /** This agent's node as the servers know it (client agents only). */
    record NodeState(String id, String name, String status, String schedulingEligibility, boolean drain) {}

    /**
     * A driver or fingerprinter bundle: its bundle state and what it reports. For a driver, {@code detected} and
     * {@code healthy} are the node's (else the driver's own); for a fingerprinter, whether its service is up.
     */
    record Plugin(String name, String bundle, String version, String bundleState, boolean detected, boolean healthy,
                  String healthDescription) {}

    /** @param error null when the reload succeeded */
    record Reload(String at, List<String> changed, List<String> applied, List<String> restartRequired,
                  List<String> warnings, String error) {}
}
