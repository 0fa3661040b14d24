/**
 * Implementation of the state store: the persistent AVL tree, the immutable root, transactions, the watch
 * registry and the snapshot stream format. Private to the bundle.
 */
package io.caravan.state.internal;
