package io.caravan.hcl.internal;

/**
 * A lexical token: its type, raw source text and char indexes {@code [start, end)}. {@code strip} marks a
 * {@code ~} strip marker: on a template opener ({@code ${~}, {@code %{~}) it strips the literal before, on a
 * {@link Type#TEMPLATE_SEQ_END} ({@code ~}}) the literal after.
 */
record Token(Type type, String text, int start, int end, boolean strip) {

    enum Type {
        IDENT, NUMBER,
        OQUOTE, CQUOTE, QUOTED_LIT,
        OHEREDOC, CHEREDOC, STRING_LIT,
        TEMPLATE_INTERP, TEMPLATE_CONTROL, TEMPLATE_SEQ_END,
        LBRACE, RBRACE, LBRACK, RBRACK, LPAREN, RPAREN,
        COMMA, DOT, ELLIPSIS, COLON, QUESTION, EQUAL, FAT_ARROW,
        PLUS, MINUS, STAR, SLASH, PERCENT, AND, OR, BANG,
        EQEQ, NOTEQ, LT, GT, LTE, GTE,
        NEWLINE, EOF,
        /** A character the language does not use; the lexer has already reported it. */
        INVALID
    }

    boolean is(Type t) {
        return type == t;
    }

    boolean isIdent(String name) {
        return type == Type.IDENT && text.equals(name);
    }
}
