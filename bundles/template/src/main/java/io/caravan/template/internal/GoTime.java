package io.caravan.template.internal;

import java.time.ZonedDateTime;
import java.time.format.TextStyle;
import java.util.Locale;

/** Formats a time with a Go layout ("2006-01-02T15:04:05Z07:00"), as consul-template's timestamp does. */
final class GoTime {
    private GoTime() {}

    static String format(ZonedDateTime t, String layout) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        while (i < layout.length()) {
            String rest = layout.substring(i);
            String tok = match(rest);
            if (tok == null) {
                sb.append(layout.charAt(i++));
                continue;
            }
            i += tok.length();
            sb.append(render(t, tok));
        }
        return sb.toString();
    }

    private static final String[] TOKENS = {
        "January", "Jan", "Monday", "Mon", "MST", "2006", "Z07:00:00", "Z07:00", "Z0700", "Z07", "-07:00:00",
        "-07:00", "-0700", "-07", "002", "__2", "_2", "01", "02", "03", "04", "05", "06", "15", "PM", "pm",
        "1", "2", "3", "4", "5"
    };

    private static String match(String rest) {
        if ((rest.startsWith(".0") || rest.startsWith(".9") || rest.startsWith(",0") || rest.startsWith(",9"))) {
            char d = rest.charAt(1);
            int n = 1;
            while (n + 1 < rest.length() && rest.charAt(n + 1) == d) n++;
            if (n + 1 >= rest.length() || !Character.isDigit(rest.charAt(n + 1))) return rest.substring(0, n + 1);
        }
        for (String tok : TOKENS) {
            if (rest.startsWith(tok)) {
                // "Jan"/"Mon" must not be the start of a longer lowercase word ("Monday" is matched before)
                return tok;
            }
        }
        return null;
    }

    private static String render(ZonedDateTime t, String tok) {
        if (tok.startsWith(".") || tok.startsWith(",")) {
            int digits = tok.length() - 1;
            String nanos = String.format("%09d", t.getNano()).substring(0, digits);
            if (tok.charAt(1) == '9') {
                nanos = nanos.replaceAll("0+$", "");
                return nanos.isEmpty() ? "" : tok.charAt(0) + nanos;
            }
            return tok.charAt(0) + nanos;
        }
        int offset = t.getOffset().getTotalSeconds();
        switch (tok) {
            case "January": return t.getMonth().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
            case "Jan": return t.getMonth().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
            case "Monday": return t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ENGLISH);
            case "Mon": return t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
            case "MST": return offset == 0 ? "UTC" : t.getZone().getDisplayName(TextStyle.SHORT, Locale.ENGLISH);
            case "2006": return String.format("%04d", t.getYear());
            case "06": return String.format("%02d", t.getYear() % 100);
            case "01": return String.format("%02d", t.getMonthValue());
            case "1": return Integer.toString(t.getMonthValue());
            case "02": return String.format("%02d", t.getDayOfMonth());
            case "_2": return String.format("%2d", t.getDayOfMonth());
            case "2": return Integer.toString(t.getDayOfMonth());
            case "002": return String.format("%03d", t.getDayOfYear());
            case "__2": return String.format("%3d", t.getDayOfYear());
            case "15": return String.format("%02d", t.getHour());
            case "03": return String.format("%02d", hour12(t));
            case "3": return Integer.toString(hour12(t));
            case "04": return String.format("%02d", t.getMinute());
            case "4": return Integer.toString(t.getMinute());
            case "05": return String.format("%02d", t.getSecond());
            case "5": return Integer.toString(t.getSecond());
            case "PM": return t.getHour() >= 12 ? "PM" : "AM";
            case "pm": return t.getHour() >= 12 ? "pm" : "am";
            default: return zone(offset, tok);
        }
    }

    private static int hour12(ZonedDateTime t) {
        int h = t.getHour() % 12;
        return h == 0 ? 12 : h;
    }

    private static String zone(int offset, String tok) {
        if (tok.startsWith("Z") && offset == 0) return "Z";
        String sign = offset < 0 ? "-" : "+";
        int abs = Math.abs(offset);
        String hh = String.format("%02d", abs / 3600);
        String mm = String.format("%02d", abs / 60 % 60);
        String ss = String.format("%02d", abs % 60);
        String body = tok.startsWith("Z") ? tok.substring(1) : tok.substring(1);
        switch (body) {
            case "07:00:00": return sign + hh + ":" + mm + ":" + ss;
            case "07:00": return sign + hh + ":" + mm;
            case "0700": return sign + hh + mm;
            default: return sign + hh;
        }
    }
}
