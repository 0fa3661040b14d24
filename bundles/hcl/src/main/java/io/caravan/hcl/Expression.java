package io.caravan.hcl;

import io.caravan.hcl.internal.Evaluator;
import io.caravan.hcl.internal.Variables;
import java.util.List;

/**
 * An expression of the native syntax, kept exactly as written (nothing is folded or evaluated by the parser).
 * Every node carries its source {@link #range()}, so the original text is always recoverable with
 * {@link HclFile#text(Range)}.
 */
public sealed interface Expression {

    Range range();

    /**
     * Evaluates this expression.
     *
     * @throws HclException with a diagnostic pointing at the failing sub-expression
     */
    default Value evaluate(EvalContext ctx) {
        return Evaluator.evaluate(this, ctx);
    }

    /**
     * The variables this expression refers to (excluding those bound by its own {@code for} expressions), in
     * source order; e.g. to learn which inputs a configuration needs before evaluating it.
     */
    default List<Variable> variables() {
        return Variables.of(this);
    }

    /** A number, {@code true}, {@code false} or {@code null}. */
    record Literal(Value value, Range range) implements Expression {
    }

    /**
     * A quoted string or heredoc (or a standalone template). Literal parts are already unescaped, stripped
     * ({@code ~}) and, for {@code <<-} heredocs, unindented. A template whose only part is one interpolation
     * evaluates to that interpolation's value unconverted ("unwrapping").
     */
    record Template(List<TemplatePart> parts, Range range) implements Expression {
        public Template {
            parts = List.copyOf(parts);
        }
    }

    /** A reference to a variable: the root of a traversal. */
    record Variable(String name, Range range) implements Expression {
    }

    /** {@code object.name}. */
    record GetAttr(Expression object, String name, Range nameRange, Range range) implements Expression {
    }

    /**
     * {@code collection[key]}, or the legacy {@code collection.0} form ({@code legacy} true).
     */
    record Index(Expression collection, Expression key, boolean legacy, Range range) implements Expression {
    }

    /**
     * {@code source.*.a.b} (attribute-only splat, {@code full} false) or {@code source[*].a[0]} (full splat):
     * {@code each} is evaluated once per element of {@code source}, with {@link SplatItem} standing for the
     * element.
     */
    record Splat(Expression source, Expression each, boolean full, Range range) implements Expression {
    }

    /** The current element inside {@link Splat#each()}; its range is that of the {@code .*} or {@code [*]}. */
    record SplatItem(Range range) implements Expression {
    }

    /** {@code name(args...)}; {@code expandFinal} when the last argument is followed by {@code ...}. */
    record Call(String name, List<Expression> args, boolean expandFinal, Range nameRange, Range range)
            implements Expression {
        public Call {
            args = List.copyOf(args);
        }
    }

    /** {@code [a, b, c]}. */
    record Tuple(List<Expression> elements, Range range) implements Expression {
        public Tuple {
            elements = List.copyOf(elements);
        }
    }

    /**
     * {@code { key = value, key: value }}. A key that is a bare {@link Variable} (not parenthesised) or one of the
     * keywords {@code true false null} names the attribute literally, as the spec requires; any other key
     * expression is evaluated and converted to a string.
     */
    record ObjectCons(List<Item> items, Range range) implements Expression {
        public ObjectCons {
            items = List.copyOf(items);
        }

        public record Item(Expression key, Expression value, Range range) {
        }
    }

    /**
     * {@code [for k, v in coll : value if cond]} ({@code keyResult} null) or
     * {@code {for k, v in coll : keyResult => value... if cond}}. {@code keyVar} and {@code condition} may be null.
     */
    record For(String keyVar, String valueVar, Expression collection, Expression keyResult, Expression value,
               Expression condition, boolean grouped, Range range) implements Expression {

        public boolean isObject() {
            return keyResult != null;
        }
    }

    /** {@code -x} or {@code !x}. */
    record Unary(Operator operator, Expression operand, Range range) implements Expression {
    }

    /** {@code left op right}. */
    record Binary(Operator operator, Expression left, Expression right, Range range) implements Expression {
    }

    /** {@code condition ? whenTrue : whenFalse}. */
    record Conditional(Expression condition, Expression whenTrue, Expression whenFalse, Range range)
            implements Expression {
    }

    /** {@code ( expression )}: kept so that {@code {(k) = v}} differs from {@code {k = v}} and for lossless ranges. */
    record Parens(Expression expression, Range range) implements Expression {
    }
}
