package io.caravan.hcl;

/**
 * A problem found while parsing or evaluating, with the source range it is about.
 *
 * @param severity error or warning
 * @param summary  short description, e.g. {@code Unknown variable}
 * @param detail   full sentence(s) explaining the problem; may be empty
 * @param subject  the source range the problem is about
 */
public record Diagnostic(Severity severity, String summary, String detail, Range subject) {

    public enum Severity { ERROR, WARNING }

    public static Diagnostic error(String summary, String detail, Range subject) {
        return new Diagnostic(Severity.ERROR, summary, detail, subject);
    }

    /** {@code file:line:column: summary; detail}. */
    @Override
    public String toString() {
        String where = subject == null ? "<unknown>" : subject.toString();
        return detail == null || detail.isEmpty() ? where + ": " + summary : where + ": " + summary + "; " + detail;
    }
}
