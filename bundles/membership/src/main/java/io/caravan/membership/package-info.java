/**
 * How Caravan servers find and track each other on the serf port (4648 by default), like Nomad's serf pool: every
 * server of every region is a {@link io.caravan.membership.Member}; {@link io.caravan.membership.Membership} lists
 * them, joins, leaves and force-leaves. The wire protocol (gossip push-pull over HTTP, AES-GCM with the gossip key) is
 * private to this bundle.
 */
@Version("1.2.0")
package io.caravan.membership;

import org.osgi.annotation.versioning.Version;
