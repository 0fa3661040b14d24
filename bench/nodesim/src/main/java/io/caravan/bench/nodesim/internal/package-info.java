/** The node simulator: private, a bundle of its own only so it can be dropped into a benchmark agent. */
package io.caravan.bench.nodesim.internal;
