/**
 * Caravan's RPC: endpoints are declared once, as data ({@link io.caravan.rpc.Endpoint}), by
 * {@link io.caravan.rpc.EndpointProvider} whiteboard services; one dispatcher decodes, forwards to the leader when the
 * endpoint says so, runs the handler and returns a structured error on failure. {@link io.caravan.rpc.Rpc} calls
 * servers (failing over between them), a given server, or a client node through the connection that node opened, and
 * opens {@link io.caravan.rpc.RpcStream streams} to them, served by {@link io.caravan.rpc.StreamEndpointProvider}s.
 */
@Version("1.2.0")
@Export
package io.caravan.rpc;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
