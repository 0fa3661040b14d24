package io.caravan.state;

import org.osgi.annotation.versioning.ProviderType;

/**
 * What a query read, so that a blocking query wakes only when one of these changes.
 *
 * <p>Reads made through the {@link StateSnapshot} handed to a {@link StateQuery} register themselves; these
 * methods are for anything else. Watching more than needed costs a spurious re-run, never a missed change.
 * A commit wakes a watch when it writes (inserts, updates or deletes) a row that matches it: for index
 * watches, a row whose old or new value has a matching index key.
 */
@ProviderType
public interface WatchSet {

    /** Any write to the table. */
    void table(String table);

    /** A write to the row with this primary key. */
    void key(String table, String id);

    /** A write to a row whose primary key starts with {@code prefix}. */
    void prefix(String table, String prefix);

    /** A write to a row indexed (before or after) under {@code key} in the secondary index {@code index}. */
    void indexKey(String table, String index, String key);

    /** A write to a row indexed under a key starting with {@code prefix} in the secondary index {@code index}. */
    void indexPrefix(String table, String index, String prefix);
}
