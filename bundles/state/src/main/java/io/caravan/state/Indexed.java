package io.caravan.state;

/**
 * A query result and the Raft index it reflects (Nomad's {@code X-Nomad-Index}).
 *
 * @param value the result; immutable, like everything read from the store
 * @param index the Raft index the result is current as of; a blocking query returns once this exceeds its
 *              {@code minIndex}
 */
public record Indexed<T>(T value, long index) {
}
