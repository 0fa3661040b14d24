package io.caravan.hcl;

/** Unary and binary operators, with HCL's binary precedence levels (higher binds tighter). */
public enum Operator {
    OR("||", 1), AND("&&", 2),
    EQUAL("==", 3), NOT_EQUAL("!=", 3),
    GREATER(">", 4), GREATER_OR_EQUAL(">=", 4), LESS("<", 4), LESS_OR_EQUAL("<=", 4),
    ADD("+", 5), SUBTRACT("-", 5),
    MULTIPLY("*", 6), DIVIDE("/", 6), MODULO("%", 6),
    /** Unary {@code !}. */
    NOT("!", 7),
    /** Unary {@code -}. */
    NEGATE("-", 7);

    private final String symbol;
    private final int level;

    Operator(String symbol, int level) {
        this.symbol = symbol;
        this.level = level;
    }

    public String symbol() {
        return symbol;
    }

    /** Binary precedence level, 1 ({@code ||}) to 6 ({@code * / %}); 7 for the unary operators. */
    public int level() {
        return level;
    }
}
