package io.caravan.scheduler.internal.placement;

import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

import io.caravan.api.model.Constraint;

/**
 * Nomad's constraint operators over resolved values ({@code null} = the node has no such value). Ordering
 * operators compare as integers, then as floats, then lexically; set operators split on commas.
 */
public final class ConstraintMatcher {
    private ConstraintMatcher() {
    }

    public static boolean matches(String operand, String left, String right, EvalContext ctx) {
        String op = operand == null || operand.isEmpty() ? Constraint.OP_EQUAL : operand;
        boolean both = left != null && right != null;
        switch (op) {
            case Constraint.OP_DISTINCT_HOSTS:
            case Constraint.OP_DISTINCT_PROPERTY:
                return true; // checked by their own checks, against other placements
            case "=":
            case "==":
            case "is":
                return both && left.equals(right);
            case "!=":
            case "not":
                return !Objects.equals(left, right);
            case "<":
            case "<=":
            case ">":
            case ">=":
                return both && order(op, left, right);
            case Constraint.OP_IS_SET:
                return left != null;
            case Constraint.OP_IS_NOT_SET:
                return left == null;
            case Constraint.OP_VERSION:
            case Constraint.OP_SEMVER: {
                if (!both) {
                    return false;
                }
                VersionConstraint vc = ctx.versionConstraint(right, op.equals(Constraint.OP_SEMVER));
                return vc != null && vc.matches(left);
            }
            case Constraint.OP_REGEX: {
                if (!both) {
                    return false;
                }
                Pattern p = ctx.regex(right);
                return p != null && p.matcher(left).find();
            }
            case Constraint.OP_SET_CONTAINS:
            case Constraint.OP_SET_CONTAINS_ALL:
                return both && split(left).containsAll(split(right));
            case Constraint.OP_SET_CONTAINS_ANY: {
                if (!both) {
                    return false;
                }
                Set<String> have = split(left);
                for (String want : split(right)) {
                    if (have.contains(want)) {
                        return true;
                    }
                }
                return false;
            }
            default:
                return false;
        }
    }

    private static boolean order(String op, String left, String right) {
        int c;
        Long li = parseLong(left);
        Long ri = parseLong(right);
        if (li != null && ri != null) {
            c = Long.compare(li, ri);
        } else {
            Double lf = parseDouble(left);
            Double rf = parseDouble(right);
            c = lf != null && rf != null ? Double.compare(lf, rf) : left.compareTo(right);
        }
        switch (op) {
            case "<":
                return c < 0;
            case "<=":
                return c <= 0;
            case ">":
                return c > 0;
            default:
                return c >= 0;
        }
    }

    private static Long parseLong(String s) {
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Double parseDouble(String s) {
        try {
            return Double.parseDouble(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Set<String> split(String list) {
        Set<String> out = new HashSet<>();
        for (String part : list.split(",")) {
            out.add(part.trim());
        }
        return out;
    }

    /** Nomad's {@code Constraint.String()}: the key under which rejections are counted. */
    public static String describe(Constraint c) {
        return c.lTarget() + " " + c.operand() + " " + c.rTarget();
    }
}
