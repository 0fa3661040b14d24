package io.caravan.cli.format;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Durations as Nomad's CLI reads and prints them (Go's {@code time.ParseDuration} and {@code Duration.String}):
 * {@code 1h30m}, {@code 90s}, {@code 1.5s}, {@code 250ms}.
 */
public final class GoDuration {
    private static final Map<String, Long> UNITS = new LinkedHashMap<>();

    static {
        UNITS.put("ns", 1L);
        UNITS.put("us", 1_000L);
        UNITS.put("µs", 1_000L);
        UNITS.put("μs", 1_000L);
        UNITS.put("ms", 1_000_000L);
        UNITS.put("s", 1_000_000_000L);
        UNITS.put("m", 60_000_000_000L);
        UNITS.put("h", 3_600_000_000_000L);
    }

    private GoDuration() {
    }

    /** Parses {@code [-+]?(\d*\.?\d+unit)+} or {@code 0}; the message of the exception is Go's. */
    public static Duration parse(String text) {
        String s = text;
        boolean negative = false;
        if (!s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
            negative = s.charAt(0) == '-';
            s = s.substring(1);
        }
        if (s.equals("0")) {
            return Duration.ZERO;
        }
        if (s.isEmpty()) {
            throw invalid(text);
        }
        BigDecimal nanos = BigDecimal.ZERO;
        int i = 0;
        while (i < s.length()) {
            int start = i;
            while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
                i++;
            }
            String number = s.substring(start, i);
            if (number.isEmpty() || number.equals(".") || number.indexOf('.') != number.lastIndexOf('.')) {
                throw invalid(text);
            }
            int unitStart = i;
            while (i < s.length() && !Character.isDigit(s.charAt(i)) && s.charAt(i) != '.') {
                i++;
            }
            String unit = s.substring(unitStart, i);
            if (unit.isEmpty()) {
                throw new IllegalArgumentException("time: missing unit in duration \"" + text + "\"");
            }
            Long scale = UNITS.get(unit);
            if (scale == null) {
                throw new IllegalArgumentException("time: unknown unit \"" + unit + "\" in duration \"" + text + "\"");
            }
            nanos = nanos.add(new BigDecimal(number).multiply(BigDecimal.valueOf(scale)));
        }
        long value = nanos.longValue();
        return Duration.ofNanos(negative ? -value : value);
    }

    /** Go's {@code Duration.String()}: {@code 1h0m0s}, {@code 1m30s}, {@code 1.5s}, {@code 250ms}, {@code 0s}. */
    public static String format(Duration duration) {
        long nanos = duration.toNanos();
        if (nanos == 0) {
            return "0s";
        }
        String sign = nanos < 0 ? "-" : "";
        long abs = Math.abs(nanos);
        if (abs < 1_000_000_000L) {
            if (abs < 1_000L) {
                return sign + abs + "ns";
            }
            return abs < 1_000_000L ? sign + decimal(abs, 1_000L) + "µs" : sign + decimal(abs, 1_000_000L) + "ms";
        }
        long hours = abs / 3_600_000_000_000L;
        long minutes = abs / 60_000_000_000L % 60;
        String seconds = decimal(abs % 60_000_000_000L, 1_000_000_000L) + "s";
        if (hours > 0) {
            return sign + hours + "h" + minutes + "m" + seconds;
        }
        return sign + (minutes > 0 ? minutes + "m" : "") + seconds;
    }

    /** {@code value / unit} with the fraction's trailing zeros dropped. */
    private static String decimal(long value, long unit) {
        return BigDecimal.valueOf(value).divide(BigDecimal.valueOf(unit)).stripTrailingZeros().toPlainString();
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("time: invalid duration \"" + text + "\"");
    }
}
