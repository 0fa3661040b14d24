/**
 * The gossip behind {@link io.caravan.membership.Membership}: {@link io.caravan.membership.internal.Gossip} (Jetty core
 * server on the serf port, JDK HTTP client, CBOR bodies, AES-GCM with the gossip key) and the DS component that runs it
 * on PID {@code io.caravan.server}. Private.
 */
package io.caravan.membership.internal;
