package io.caravan.hcl;

/**
 * A point in a source file, as HCL reports it.
 *
 * @param line   1-based line number
 * @param column 1-based column, counted in Unicode code points (a tab is one column)
 * @param offset 0-based byte offset into the UTF-8 encoding of the source
 */
public record Position(int line, int column, int offset) {

    /** The start of a file. */
    public static final Position START = new Position(1, 1, 0);

    @Override
    public String toString() {
        return line + ":" + column;
    }
}
