package io.caravan.hcl.internal;

import io.caravan.hcl.Expression;
import io.caravan.hcl.TemplatePart;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Finds the free variable references of an expression: those not bound by an enclosing {@code for}. */
public final class Variables {

    private Variables() {
    }

    public static List<Expression.Variable> of(Expression e) {
        List<Expression.Variable> out = new ArrayList<>();
        walk(e, Set.of(), out);
        return out;
    }

    private static void walk(Expression e, Set<String> bound, List<Expression.Variable> out) {
        if (e == null) {
            return;
        }
        if (e instanceof Expression.Variable v) {
            if (!bound.contains(v.name())) {
                out.add(v);
            }
        } else if (e instanceof Expression.Template t) {
            walkParts(t.parts(), bound, out);
        } else if (e instanceof Expression.GetAttr g) {
            walk(g.object(), bound, out);
        } else if (e instanceof Expression.Index i) {
            walk(i.collection(), bound, out);
            walk(i.key(), bound, out);
        } else if (e instanceof Expression.Splat s) {
            walk(s.source(), bound, out);
            walk(s.each(), bound, out);
        } else if (e instanceof Expression.Call c) {
            c.args().forEach(a -> walk(a, bound, out));
        } else if (e instanceof Expression.Tuple t) {
            t.elements().forEach(a -> walk(a, bound, out));
        } else if (e instanceof Expression.ObjectCons o) {
            for (Expression.ObjectCons.Item item : o.items()) {
                if (!(item.key() instanceof Expression.Variable)) {
                    walk(item.key(), bound, out); // a bare identifier key is a name, not a reference
                }
                walk(item.value(), bound, out);
            }
        } else if (e instanceof Expression.For f) {
            walk(f.collection(), bound, out);
            Set<String> inner = bind(bound, f.keyVar(), f.valueVar());
            walk(f.keyResult(), inner, out);
            walk(f.value(), inner, out);
            walk(f.condition(), inner, out);
        } else if (e instanceof Expression.Unary u) {
            walk(u.operand(), bound, out);
        } else if (e instanceof Expression.Binary b) {
            walk(b.left(), bound, out);
            walk(b.right(), bound, out);
        } else if (e instanceof Expression.Conditional c) {
            walk(c.condition(), bound, out);
            walk(c.whenTrue(), bound, out);
            walk(c.whenFalse(), bound, out);
        } else if (e instanceof Expression.Parens p) {
            walk(p.expression(), bound, out);
        }
    }

    private static void walkParts(List<TemplatePart> parts, Set<String> bound, List<Expression.Variable> out) {
        for (TemplatePart p : parts) {
            if (p instanceof TemplatePart.Interpolation i) {
                walk(i.expression(), bound, out);
            } else if (p instanceof TemplatePart.If d) {
                walk(d.condition(), bound, out);
                walkParts(d.then(), bound, out);
                walkParts(d.otherwise(), bound, out);
            } else if (p instanceof TemplatePart.For d) {
                walk(d.collection(), bound, out);
                walkParts(d.body(), bind(bound, d.keyVar(), d.valueVar()), out);
            }
        }
    }

    private static Set<String> bind(Set<String> bound, String keyVar, String valueVar) {
        Set<String> inner = new HashSet<>(bound);
        if (keyVar != null) {
            inner.add(keyVar);
        }
        inner.add(valueVar);
        return inner;
    }
}
