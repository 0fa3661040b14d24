/**
 * Caravan's state store: an in-memory MVCC store over caller-declared tables (Nomad's go-memdb re-imagined).
 *
 * <p>Reads take an O(1) {@link io.caravan.state.StateSnapshot}; the single writer (the Raft apply thread) opens a
 * {@link io.caravan.state.StateTxn} per log entry; long-polls are {@link io.caravan.state.StateStore#query async
 * blocking queries} that park as futures, not threads. Every value stored must be immutable. A
 * {@link io.caravan.state.ChangeListener} hears the rows each commit changed.
 */
@Version("1.3.0")
package io.caravan.state;

import org.osgi.annotation.versioning.Version;
