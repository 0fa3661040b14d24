/** Jetty connectors served over the agent's {@link io.caravan.tls.ReloadableTls} (HTTP API and RPC ports). */
@Version("1.0.0")
package io.caravan.tls.jetty;

import org.osgi.annotation.versioning.Version;
