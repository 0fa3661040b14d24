package io.caravan.consensus;

/**
 * A command that is committed and applied on this server.
 *
 * @param index the Raft log index the command was stored at (Nomad's {@code X-Nomad-Index} for the write)
 * @param result what {@link CommandHandler#apply} returned for it
 */
public record Applied(long index, byte[] result) {
}
