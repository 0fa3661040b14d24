package io.caravan.hcl;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A parsed configuration file: its name, its full source text and its top-level body.
 */
public record HclFile(String filename, String source, Body body) {

    /** The exact source text a range covers (ranges hold UTF-8 byte offsets). */
    public String text(Range range) {
        byte[] bytes = source.getBytes(StandardCharsets.UTF_8);
        int from = Math.max(0, Math.min(bytes.length, range.start().offset()));
        int to = Math.max(from, Math.min(bytes.length, range.end().offset()));
        return new String(Arrays.copyOfRange(bytes, from, to), StandardCharsets.UTF_8);
    }
}
