package io.caravan.state;

import java.util.HashMap;
import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Row serialisation for snapshot streams, supplied by the caller (the store knows no value types).
 *
 * <p>Most callers build one from per-table pieces with {@link #of}.
 */
@ConsumerType
public interface Codec {

    <T> byte[] encode(TableSpec<T> table, T row);

    <T> T decode(TableSpec<T> table, byte[] bytes);

    /** A codec that dispatches on the table name; a table without a codec is an error when met. */
    static Codec of(TableCodec<?>... tables) {
        Map<String, TableCodec<?>> byName = new HashMap<>();
        for (TableCodec<?> t : tables) {
            if (byName.put(t.table().name(), t) != null) {
                throw new IllegalArgumentException("two codecs for table " + t.table().name());
            }
        }
        return new Codec() {
            @Override
            public <T> byte[] encode(TableSpec<T> table, T row) {
                return codec(table).encoder().apply(row);
            }

            @Override
            public <T> T decode(TableSpec<T> table, byte[] bytes) {
                return table.type().cast(codec(table).decoder().apply(bytes));
            }

            @SuppressWarnings("unchecked") // keyed by name, checked against the spec below
            private <T> TableCodec<T> codec(TableSpec<T> table) {
                TableCodec<?> c = byName.get(table.name());
                if (c == null || !c.table().equals(table)) {
                    throw new IllegalArgumentException("no codec for table " + table.name());
                }
                return (TableCodec<T>) c;
            }
        };
    }
}
