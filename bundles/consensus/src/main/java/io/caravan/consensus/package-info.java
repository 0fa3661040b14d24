/**
 * The Raft log as a service. {@link io.caravan.consensus.Replicator} appends opaque commands through Raft; the one
 * {@link io.caravan.consensus.CommandHandler} on each server applies them, in log order, to its state. The bundle knows
 * nothing of the model: the server bundle decides what a command is. {@link io.caravan.consensus.Leadership} exists
 * while this server leads, so leader-only duties are DS components that require it. Raft (Apache Ratis) stays private to this bundle.
 */
@Version("1.6.0")
package io.caravan.consensus;

import org.osgi.annotation.versioning.Version;
