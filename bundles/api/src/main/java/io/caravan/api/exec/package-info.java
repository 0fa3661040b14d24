/**
 * Nomad's {@code alloc exec} WebSocket frames, shared by the client's endpoint and the CLI: JSON text messages
 * whose stream data is base64.
 */
@Version("1.0.0")
package io.caravan.api.exec;

import org.osgi.annotation.versioning.Version;
