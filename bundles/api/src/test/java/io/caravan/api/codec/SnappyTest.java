package io.caravan.api.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SnappyTest {
    /** Lengths around each literal-tag boundary (60, 256, 65536) and the varint's. */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 59, 60, 61, 127, 128, 255, 256, 257, 16384, 65535, 65536, 65537, 200_000})
    void whatIsEncodedDecodesToItself(int length) {
        byte[] data = new byte[length];
        new Random(length).nextBytes(data);
        assertArrayEquals(data, Snappy.decode(Snappy.encode(data)));
    }
}
