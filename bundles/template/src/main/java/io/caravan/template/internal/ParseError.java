package io.caravan.template.internal;

/** A syntax error at an offset; {@link Parser} turns it into a positioned TemplateException. */
final class ParseError extends Exception {
    private static final long serialVersionUID = 1L;
    final int pos;

    ParseError(int pos, String message) {
        super(message, null, false, false);
        this.pos = pos;
    }
}
