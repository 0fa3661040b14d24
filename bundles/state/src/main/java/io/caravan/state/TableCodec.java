package io.caravan.state;

import java.util.Objects;
import java.util.function.Function;

/**
 * How one table's rows become bytes in a snapshot stream and back; see {@link Codec#of}.
 *
 * @param table   the table
 * @param encoder row → bytes
 * @param decoder bytes → row; may throw on bad input (the restore then fails and changes nothing)
 */
public record TableCodec<T>(TableSpec<T> table, Function<? super T, byte[]> encoder,
                            Function<byte[], ? extends T> decoder) {

    public TableCodec {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(encoder, "encoder");
        Objects.requireNonNull(decoder, "decoder");
    }
}
