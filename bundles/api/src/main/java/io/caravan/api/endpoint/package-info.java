/**
 * The server endpoints a client agent calls, as Java interfaces: Nomad's {@code Node.*} RPCs. In one process (a
 * dev agent) the client binds the server's implementation as an OSGi service; across machines the RPC transport
 * provides the same interface, so the client never knows which it has.
 */
@Version("1.3.0")
package io.caravan.api.endpoint;

import org.osgi.annotation.versioning.Version;
