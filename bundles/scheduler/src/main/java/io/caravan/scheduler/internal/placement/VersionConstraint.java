package io.caravan.scheduler.internal.placement;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A version constraint such as {@code ">= 1.2, < 2.0"}: the {@code version} operator (go-version rules, with
 * {@code ~>} and lenient versions like {@code v1.2}) or, with {@code strict}, the {@code semver} operator
 * (SemVer 2.0 versions, no {@code ~>}). Under go-version rules a pre-release version only satisfies a constraint
 * that itself names a pre-release.
 */
public final class VersionConstraint {
    private static final Pattern PART = Pattern.compile("^\\s*(=|!=|>=|<=|>|<|~>)?\\s*(\\S+)\\s*$");

    private final List<Term> terms;
    private final boolean strict;

    private record Term(String op, Version version) {
    }

    private VersionConstraint(List<Term> terms, boolean strict) {
        this.terms = terms;
        this.strict = strict;
    }

    /** The constraint, or null when it does not parse. */
    public static VersionConstraint parse(String text, boolean strict) {
        List<Term> terms = new ArrayList<>();
        for (String part : text.split(",")) {
            Matcher m = PART.matcher(part);
            if (!m.matches()) {
                return null;
            }
            String op = m.group(1) == null ? "=" : m.group(1);
            Version v = Version.parse(m.group(2), strict);
            if (v == null || (strict && op.equals("~>"))) {
                return null;
            }
            terms.add(new Term(op, v));
        }
        return terms.isEmpty() ? null : new VersionConstraint(terms, strict);
    }

    public boolean matches(String versionText) {
        Version v = Version.parse(versionText, strict);
        if (v == null) {
            return false;
        }
        for (Term t : terms) {
            if (!strict && v.prerelease != null && t.version.prerelease == null) {
                return false;
            }
            if (!holds(t, v)) {
                return false;
            }
        }
        return true;
    }

    private static boolean holds(Term t, Version v) {
        int c = v.compareTo(t.version);
        switch (t.op) {
            case "=":
                return c == 0;
            case "!=":
                return c != 0;
            case ">":
                return c > 0;
            case "<":
                return c < 0;
            case ">=":
                return c >= 0;
            case "<=":
                return c <= 0;
            default: // ~>: at least the version, and the same leading segments but the last one written
                if (c < 0) {
                    return false;
                }
                int fixed = Math.max(1, t.version.written - 1);
                for (int i = 0; i < fixed; i++) {
                    if (v.segment(i) != t.version.segment(i)) {
                        return false;
                    }
                }
                return true;
        }
    }

    /** A parsed version: numeric segments, optional pre-release; build metadata is ignored. */
    static final class Version implements Comparable<Version> {
        private static final Pattern LENIENT = Pattern.compile(
                "^v?(\\d+(?:\\.\\d+)*)(?:-([0-9A-Za-z.\\-~]+))?(?:\\+[0-9A-Za-z.\\-~]+)?$");
        private static final Pattern SEMVER = Pattern.compile(
                "^(\\d+(?:\\.\\d+){0,2})(?:-([0-9A-Za-z.\\-]+))?(?:\\+[0-9A-Za-z.\\-]+)?$");

        final long[] segments;
        final int written;
        final String prerelease;

        private Version(long[] segments, int written, String prerelease) {
            this.segments = segments;
            this.written = written;
            this.prerelease = prerelease;
        }

        static Version parse(String text, boolean strict) {
            Matcher m = (strict ? SEMVER : LENIENT).matcher(text.trim());
            if (!m.matches()) {
                return null;
            }
            String[] parts = m.group(1).split("\\.");
            long[] segs = new long[Math.max(3, parts.length)];
            try {
                for (int i = 0; i < parts.length; i++) {
                    segs[i] = Long.parseLong(parts[i]);
                }
            } catch (NumberFormatException e) {
                return null;
            }
            return new Version(segs, parts.length, m.group(2));
        }

        long segment(int i) {
            return i < segments.length ? segments[i] : 0;
        }

        @Override
        public int compareTo(Version o) {
            int n = Math.max(segments.length, o.segments.length);
            for (int i = 0; i < n; i++) {
                int c = Long.compare(segment(i), o.segment(i));
                if (c != 0) {
                    return c;
                }
            }
            return comparePrerelease(prerelease, o.prerelease);
        }

        private static int comparePrerelease(String a, String b) {
            if (a == null || b == null) {
                return a == null ? (b == null ? 0 : 1) : -1; // a release sorts after its pre-releases
            }
            String[] pa = a.split("\\.");
            String[] pb = b.split("\\.");
            for (int i = 0; i < Math.min(pa.length, pb.length); i++) {
                boolean na = pa[i].chars().allMatch(Character::isDigit);
                boolean nb = pb[i].chars().allMatch(Character::isDigit);
                int c;
                if (na && nb) {
                    c = Long.compare(Long.parseLong(pa[i]), Long.parseLong(pb[i]));
                } else if (na != nb) {
                    c = na ? -1 : 1; // numeric identifiers sort first
                } else {
                    c = pa[i].compareTo(pb[i]);
                }
                if (c != 0) {
                    return c;
                }
            }
            return Integer.compare(pa.length, pb.length);
        }
    }
}
