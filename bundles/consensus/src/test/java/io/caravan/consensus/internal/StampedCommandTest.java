package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

class StampedCommandTest {
    @Test
    void roundTrips() {
        ByteString entry = StampedCommand.encode(1_700_000_000_123L, ByteString.copyFromUtf8("job"));
        assertEquals(1_700_000_000_123L, StampedCommand.timestamp(entry));
        assertArrayEquals("job".getBytes(), StampedCommand.command(entry));
        assertArrayEquals(new byte[0], StampedCommand.command(StampedCommand.encode(5, ByteString.EMPTY)));
    }

    @Test
    void anEntryWithoutAStampIsCorrupt() {
        assertThrows(IllegalStateException.class, () -> StampedCommand.timestamp(ByteString.copyFromUtf8("abc")));
    }
}
