package io.caravan.hcl.internal;

import io.caravan.hcl.Position;
import io.caravan.hcl.Range;

/**
 * Maps char indexes of the (UTF-16) source string to HCL positions: 1-based line and code-point column, and UTF-8
 * byte offset, which is what HCL reports and what the spec suite expects.
 */
final class SourceMap {

    private final String filename;
    private final int[] lines;
    private final int[] columns;
    private final int[] bytes;

    SourceMap(String filename, String src) {
        this.filename = filename;
        int n = src.length();
        lines = new int[n + 1];
        columns = new int[n + 1];
        bytes = new int[n + 1];
        int line = 1;
        int col = 1;
        int off = 0;
        for (int i = 0; i < n; i++) {
            lines[i] = line;
            columns[i] = col;
            bytes[i] = off;
            char c = src.charAt(i);
            if (c == '\n') {
                line++;
                col = 1;
                off++;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(src.charAt(i + 1))) {
                // The pair is one code point of four UTF-8 bytes; the low half gets the same position.
                off += 4;
                col++;
                i++;
                lines[i] = lines[i - 1];
                columns[i] = columns[i - 1];
                bytes[i] = bytes[i - 1];
            } else {
                off += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
                col++;
            }
        }
        lines[n] = line;
        columns[n] = col;
        bytes[n] = off;
    }

    Position position(int index) {
        return new Position(lines[index], columns[index], bytes[index]);
    }

    Range range(int from, int to) {
        return new Range(filename, position(from), position(to));
    }

    String filename() {
        return filename;
    }
}
