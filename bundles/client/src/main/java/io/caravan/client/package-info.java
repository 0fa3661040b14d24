/**
 * What other bundles may ask of the local client (the data plane): where an allocation's directory is, and the
 * lifecycle operations Nomad routes to a client ({@code alloc restart}, {@code alloc signal}).
 */
@Version("1.4.0")
package io.caravan.client;

import org.osgi.annotation.versioning.Version;
