package io.caravan.api;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;

/**
 * Go's duration syntax, which Nomad users write everywhere ({@code wait=10s}, {@code kill_timeout = "1m30s"}):
 * a sequence of decimal numbers with units {@code ns us µs ms s m h}, optionally signed; {@code 0} alone is
 * allowed. Formatting follows Go's {@code Duration.String()} ({@code 1h30m0s}, {@code 200ms}).
 */
public final class GoDuration {
    private static final Map<String, Long> UNIT_NANOS = Map.of(
            "ns", 1L, "us", 1_000L, "µs", 1_000L, "μs", 1_000L, "ms", 1_000_000L,
            "s", 1_000_000_000L, "m", 60_000_000_000L, "h", 3_600_000_000_000L);

    private GoDuration() {
    }

    /** @throws IllegalArgumentException with Go's wording when {@code text} is not a duration */
    public static Duration parse(String text) {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("invalid duration \"\"");
        }
        int i = 0;
        boolean negative = false;
        if (text.charAt(0) == '-' || text.charAt(0) == '+') {
            negative = text.charAt(0) == '-';
            i++;
        }
        if (text.substring(i).equals("0")) {
            return Duration.ZERO;
        }
        if (i == text.length()) {
            throw invalid(text);
        }
        BigDecimal nanos = BigDecimal.ZERO;
        while (i < text.length()) {
            int numberStart = i;
            while (i < text.length() && (Character.isDigit(text.charAt(i)) || text.charAt(i) == '.')) {
                i++;
            }
            if (i == numberStart || text.substring(numberStart, i).equals(".")) {
                throw invalid(text);
            }
            BigDecimal number;
            try {
                number = new BigDecimal(text.substring(numberStart, i));
            } catch (NumberFormatException e) {
                throw invalid(text);
            }
            int unitStart = i;
            while (i < text.length() && !Character.isDigit(text.charAt(i)) && text.charAt(i) != '.') {
                i++;
            }
            String unit = text.substring(unitStart, i);
            Long scale = UNIT_NANOS.get(unit);
            if (scale == null) {
                throw new IllegalArgumentException(unit.isEmpty()
                        ? "missing unit in duration \"" + text + "\""
                        : "unknown unit \"" + unit + "\" in duration \"" + text + "\"");
            }
            nanos = nanos.add(number.multiply(BigDecimal.valueOf(scale)));
        }
        long total;
        try {
            total = nanos.setScale(0, java.math.RoundingMode.DOWN).longValueExact();
        } catch (ArithmeticException e) {
            throw invalid(text);
        }
        return Duration.ofNanos(negative ? -total : total);
    }

    /** Go's {@code Duration.String()}. */
    public static String format(Duration duration) {
        long nanos = duration.toNanos();
        if (nanos == 0) {
            return "0s";
        }
        StringBuilder out = new StringBuilder();
        if (nanos < 0) {
            out.append('-');
            nanos = -nanos;
        }
        if (nanos < 1_000_000_000L) {
            if (nanos < 1_000L) {
                return out.append(nanos).append("ns").toString();
            }
            if (nanos < 1_000_000L) {
                return out.append(fraction(nanos, 1_000L)).append("µs").toString();
            }
            return out.append(fraction(nanos, 1_000_000L)).append("ms").toString();
        }
        long hours = nanos / 3_600_000_000_000L;
        long minutes = nanos / 60_000_000_000L % 60;
        long rest = nanos % 60_000_000_000L;
        if (hours > 0) {
            out.append(hours).append('h');
        }
        if (hours > 0 || minutes > 0) {
            out.append(minutes).append('m');
        }
        return out.append(fraction(rest, 1_000_000_000L)).append('s').toString();
    }

    private static String fraction(long value, long unit) {
        return BigDecimal.valueOf(value).divide(BigDecimal.valueOf(unit)).stripTrailingZeros().toPlainString();
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("invalid duration \"" + text + "\"");
    }
}
