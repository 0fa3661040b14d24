package io.caravan.jobspec;

/**
 * One problem found in a jobspec, at a 1-based line and column of {@code file} (0 when the position is unknown).
 */
public record Problem(String file, int line, int column, String message) {

    /** {@code file:line:column: message}, the form HCL and Nomad print. */
    @Override
    public String toString() {
        return line > 0 ? file + ":" + line + ":" + column + ": " + message : file + ": " + message;
    }
}
