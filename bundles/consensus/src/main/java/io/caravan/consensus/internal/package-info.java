/** Ratis behind the {@link io.caravan.consensus.Replicator} API. Private: nothing here or in Ratis is exported. */
package io.caravan.consensus.internal;
