package io.caravan.agent.internal.config;

/** Where a value was written: {@code file:line:column}, or a named source such as the command line. */
public record Pos(String source, int line, int column) {
    public static Pos of(String source) {
        return new Pos(source, 0, 0);
    }

    @Override
    public String toString() {
        return line <= 0 ? source : source + ":" + line + ":" + column;
    }
}
