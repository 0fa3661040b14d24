package io.caravan.hcl;

import java.util.List;

/**
 * A part of a {@link Expression.Template}. Interpolations and directives keep their exact source text (including
 * the {@code ${ }} or {@code %{ }} delimiters) so that a template referring to variables the caller chose not to
 * resolve can be rendered back verbatim (see {@link EvalContext#deferring(java.util.function.Predicate)}).
 */
public sealed interface TemplatePart {

    Range range();

    /** Literal text, already unescaped. */
    record Literal(String value, Range range) implements TemplatePart {
    }

    /** {@code ${ expression }}. */
    record Interpolation(Expression expression, String source, Range range) implements TemplatePart {
    }

    /** {@code %{ if cond }then%{ else }otherwise%{ endif }}; {@code otherwise} is empty without {@code else}. */
    record If(Expression condition, List<TemplatePart> then, List<TemplatePart> otherwise, String source,
              Range range) implements TemplatePart {
        public If {
            then = List.copyOf(then);
            otherwise = List.copyOf(otherwise);
        }
    }

    /** {@code %{ for k, v in coll }body%{ endfor }}; {@code keyVar} may be null. */
    record For(String keyVar, String valueVar, Expression collection, List<TemplatePart> body, String source,
               Range range) implements TemplatePart {
        public For {
            body = List.copyOf(body);
        }
    }
}
