/**
 * What other bundles may know about the local agent ({@link io.caravan.agent.AgentInfo}) and how they take part in
 * its lifecycle ({@link io.caravan.agent.GracefulLeave}), and how a reload reaches another agent
 * ({@link io.caravan.agent.RemoteReload}).
 */
@Version("1.6.0")
package io.caravan.agent;

import org.osgi.annotation.versioning.Version;
