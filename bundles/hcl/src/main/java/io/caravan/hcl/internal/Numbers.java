package io.caravan.hcl.internal;

import io.caravan.hcl.Budget;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * HCL's number model. HCL (through cty) computes with binary floating point numbers of 512-bit mantissa, rounding
 * to nearest-even after every operation; the spec suite's expected results depend on it (e.g. {@code 11 % 5.1}).
 * We hold numbers as {@link BigDecimal}s in canonical form: the shortest decimal that rounds to the same 512-bit
 * value. Arithmetic converts to the exact binary value, computes exactly, and rounds back.
 */
public final class Numbers {

    static final int PRECISION = 512;
    /**
     * Guard against {@code 1e999999999}: its exact expansion would not fit in memory, and already at {@code 1e99999}
     * each operation on it takes about a second. Jobspecs and configurations need nothing near {@code 1e1000}.
     */
    private static final int MAX_SCALE = 1000;
    /** See {@link Budget#MAX_NUMBER_LENGTH}. */
    static final int MAX_LENGTH = Budget.MAX_NUMBER_LENGTH;
    private static final BigInteger FIVE = BigInteger.valueOf(5);

    private Numbers() {
    }

    /** The canonical (shortest round-tripping decimal) form of the 512-bit number nearest to {@code x}. */
    public static BigDecimal canonical(BigDecimal x) {
        BigDecimal stripped = x.stripTrailingZeros();
        if (stripped.scale() <= 0 && stripped.precision() - stripped.scale() <= 154) {
            // An integer below 10^154 < 2^512 is exact in binary and is its own shortest form. The common case
            // (indexes, counts) skips the search below, which made each for-loop iteration costly.
            return stripped;
        }
        return shortest(exact(x));
    }

    /** The exact value of the 512-bit binary number nearest to {@code x} (ties to even). */
    static BigDecimal exact(BigDecimal x) {
        if (x.signum() == 0) {
            return BigDecimal.ZERO;
        }
        // The magnitude is bounded, not the scale: an exact product of two binary fractions such as 0.7 * 2e-9
        // has a scale past 1000 yet is an ordinary number.
        if (Math.abs((long) x.precision() - x.scale()) > MAX_SCALE) {
            throw new ArithmeticException("number out of range");
        }
        BigInteger unscaled = x.unscaledValue().abs();
        BigDecimal r;
        if (x.scale() <= 0) {
            BigInteger n = unscaled.multiply(BigInteger.TEN.pow(-x.scale()));
            r = n.bitLength() <= PRECISION ? new BigDecimal(n) : roundRational(n, BigInteger.ONE);
        } else {
            r = roundRational(unscaled, BigInteger.TEN.pow(x.scale()));
        }
        return x.signum() < 0 ? r.negate() : r;
    }

    /** num/den (both positive) rounded to {@link #PRECISION} significant bits. */
    private static BigDecimal roundRational(BigInteger num, BigInteger den) {
        // Scale by 2^e so the integer quotient has exactly PRECISION bits, then round on the remainder.
        int e = PRECISION - (num.bitLength() - den.bitLength());
        BigInteger[] qr = divideScaled(num, den, e);
        if (qr[0].bitLength() > PRECISION) {
            e--;
            qr = divideScaled(num, den, e);
        }
        BigInteger q = qr[0];
        BigInteger divisor = e >= 0 ? den : den.shiftLeft(-e);
        int half = qr[1].shiftLeft(1).compareTo(divisor);
        if (half > 0 || (half == 0 && q.testBit(0))) {
            q = q.add(BigInteger.ONE);
        }
        BigDecimal r = e > 0 ? new BigDecimal(q.multiply(FIVE.pow(e)), e) : new BigDecimal(q.shiftLeft(-e));
        return r.stripTrailingZeros();
    }

    private static BigInteger[] divideScaled(BigInteger num, BigInteger den, int e) {
        return e >= 0 ? num.shiftLeft(e).divideAndRemainder(den) : num.divideAndRemainder(den.shiftLeft(-e));
    }

    /** The shortest decimal that rounds to the binary value {@code exact}. */
    private static BigDecimal shortest(BigDecimal exact) {
        if (exact.signum() == 0) {
            return BigDecimal.ZERO;
        }
        int digits = exact.precision();
        for (int n = 1; n < digits; n++) {
            BigDecimal candidate = exact.round(new MathContext(n, RoundingMode.HALF_EVEN));
            if (exact(candidate).compareTo(exact) == 0) {
                return candidate.stripTrailingZeros();
            }
        }
        return exact.stripTrailingZeros();
    }

    public static BigDecimal add(BigDecimal a, BigDecimal b) {
        return canonical(exact(a).add(exact(b)));
    }

    public static BigDecimal subtract(BigDecimal a, BigDecimal b) {
        return canonical(exact(a).subtract(exact(b)));
    }

    public static BigDecimal multiply(BigDecimal a, BigDecimal b) {
        return canonical(exact(a).multiply(exact(b)));
    }

    /** a / b, correctly rounded; b must not be zero. */
    public static BigDecimal divide(BigDecimal a, BigDecimal b) {
        return shortest(divideExact(exact(a), exact(b)));
    }

    private static BigDecimal divideExact(BigDecimal a, BigDecimal b) {
        if (a.signum() == 0) {
            return BigDecimal.ZERO;
        }
        // a = ua/10^sa, b = ub/10^sb, so a/b = (ua*10^sb)/(ub*10^sa).
        BigInteger num = a.unscaledValue().abs();
        BigInteger den = b.unscaledValue().abs();
        int scaleDiff = a.scale() - b.scale();
        if (scaleDiff > 0) {
            den = den.multiply(BigInteger.TEN.pow(scaleDiff));
        } else if (scaleDiff < 0) {
            num = num.multiply(BigInteger.TEN.pow(-scaleDiff));
        }
        BigDecimal r = roundRational(num, den);
        return a.signum() * b.signum() < 0 ? r.negate() : r;
    }

    /**
     * a % b as cty defines it: a - b * trunc(a / b), each step rounded, so the sign follows the dividend and
     * non-integer operands give the same (binary) result as HCL.
     */
    public static BigDecimal modulo(BigDecimal a, BigDecimal b) {
        BigDecimal ea = exact(a);
        BigDecimal eb = exact(b);
        BigDecimal truncated = divideExact(ea, eb).setScale(0, RoundingMode.DOWN);
        BigDecimal work = exact(eb.multiply(truncated));
        return canonical(ea.subtract(work));
    }

    /**
     * Parses a string as a number the way HCL converts strings ({@code 12}, {@code 1.5}, {@code 1.}, {@code .5},
     * {@code 1e3}, optionally signed, no blanks); null if not a number.
     */
    public static BigDecimal parse(String t) {
        if (t.length() > MAX_LENGTH || !t.matches("[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?")) {
            return null;
        }
        try {
            return canonical(new BigDecimal(t.startsWith("+") ? t.substring(1) : t));
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
    }

    /** A string as an HCL quoted string literal, for messages and {@code toString}. */
    public static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c == '$' && i + 1 < s.length() && s.charAt(i + 1) == '{'
                            || c == '%' && i + 1 < s.length() && s.charAt(i + 1) == '{') {
                        sb.append(c);
                    }
                    sb.append(c);
                }
            }
        }
        return sb.append('"').toString();
    }
}
