package io.caravan.hcl;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown when parsing or evaluation fails. Carries every error diagnostic found; the message is their
 * {@code file:line:column: summary; detail} lines.
 */
public class HclException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<Diagnostic> diagnostics;

    public HclException(List<Diagnostic> diagnostics) {
        super(diagnostics.stream().map(Diagnostic::toString).collect(Collectors.joining("\n")));
        this.diagnostics = List.copyOf(diagnostics);
    }

    public HclException(Diagnostic diagnostic) {
        this(List.of(diagnostic));
    }

    public List<Diagnostic> diagnostics() {
        return diagnostics;
    }
}
