package io.caravan.template.internal;

/** An execution error from a builtin or the evaluator, before it gets its position. */
public final class TemplateError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TemplateError(String message) {
        super(message, null, false, false);
    }
}
