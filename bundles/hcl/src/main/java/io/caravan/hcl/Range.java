package io.caravan.hcl;

import java.util.Objects;

/**
 * A half-open span {@code [start, end)} of a source file. Every AST node and every diagnostic carries one, so that
 * messages can point at {@code file:line:column} and the exact source text can be recovered
 * ({@link HclFile#text(Range)}).
 */
public record Range(String filename, Position start, Position end) {

    public Range {
        Objects.requireNonNull(filename, "filename");
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(end, "end");
    }

    /** The smallest range covering both {@code from} and {@code to} (which must be in the same file). */
    public static Range between(Range from, Range to) {
        Position s = from.start.offset() <= to.start.offset() ? from.start : to.start;
        Position e = from.end.offset() >= to.end.offset() ? from.end : to.end;
        return new Range(from.filename, s, e);
    }

    /** Whether {@code p} lies inside this range (the end is exclusive). */
    public boolean contains(Position p) {
        return p.offset() >= start.offset() && p.offset() < end.offset();
    }

    /** {@code file:line:column} of the start, the form used in diagnostics. */
    @Override
    public String toString() {
        return filename + ":" + start.line() + ":" + start.column();
    }
}
