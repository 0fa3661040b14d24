package io.caravan.hcl;

/**
 * {@code name = expression}.
 *
 * @param nameRange range of the name only (where "unsupported argument" errors point)
 * @param range     from the name to the end of the expression
 */
public record Attribute(String name, Expression expression, Range nameRange, Range range) implements BodyItem {

    /** Evaluates the expression; see {@link Expression#evaluate(EvalContext)}. */
    public Value evaluate(EvalContext ctx) {
        return expression.evaluate(ctx);
    }
}
