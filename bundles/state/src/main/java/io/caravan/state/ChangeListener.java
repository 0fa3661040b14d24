package io.caravan.state;

import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told of each committed transaction's changed rows, in commit order, on the committing (Raft apply) thread, right
 * after the commit is visible to readers. It must be quick and must not write to the store. A restore replaces
 * everything and is not reported as changes: {@link #restored} says it happened.
 *
 * <p>Rows are only recorded while at least one listener is registered, so a store nobody listens to pays nothing.
 */
@ConsumerType
public interface ChangeListener {

    /** The transaction at {@code index} committed {@code changes} (in the order first written; never empty). */
    void committed(long index, List<RowChange> changes);

    /** The state was replaced wholesale at {@code index} (a snapshot restore). */
    default void restored(long index) {
    }
}
