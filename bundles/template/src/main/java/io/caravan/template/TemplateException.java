package io.caravan.template;

/**
 * A parse or execution error, its message in Go's form: {@code template: NAME:LINE:COL: ...} (execution errors add
 * {@code executing "NAME" at <NODE>: }). {@link #line()} and {@link #column()} are 0 when the error has no position.
 */
public final class TemplateException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String templateName;
    private final int line;
    private final int column;

    public TemplateException(String message, String templateName, int line, int column) {
        super(message);
        this.templateName = templateName;
        this.line = line;
        this.column = column;
    }

    public String templateName() { return templateName; }

    /** 1-based line of the error, or 0. */
    public int line() { return line; }

    /** 0-based column (in characters) of the error on its line, as Go counts. */
    public int column() { return column; }
}
