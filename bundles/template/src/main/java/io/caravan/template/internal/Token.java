package io.caravan.template.internal;

/** One lexical item: its kind, its source text and its offset in the template. */
record Token(Kind kind, String text, int pos) {
    enum Kind {
        TEXT, LEFT_DELIM, RIGHT_DELIM, SPACE, IDENTIFIER, KEYWORD, FIELD, VARIABLE, DOT, STRING, RAW_STRING, CHAR,
        NUMBER, BOOL, NIL, PIPE, LEFT_PAREN, RIGHT_PAREN, DECLARE, ASSIGN, COMMA, EOF
    }

    /** How Go's parser names an item in its messages. */
    String describe() {
        return switch (kind) {
            case EOF -> "EOF";
            case KEYWORD -> "<" + text + ">";
            case SPACE -> "space";
            case LEFT_DELIM, RIGHT_DELIM -> "\"" + text + "\"";
            default -> text.length() > 10 ? "\"" + text.substring(0, 10) + "\"..." : "\"" + text + "\"";
        };
    }
}
