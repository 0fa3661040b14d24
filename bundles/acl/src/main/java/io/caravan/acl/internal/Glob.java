package io.caravan.acl.internal;

/**
 * A name pattern where {@code *} stands for any run of characters (none included), as Nomad's policies use them;
 * a pattern without {@code *} matches only itself. Matching allocates nothing.
 */
final class Glob implements Comparable<Glob> {
    private final String pattern;
    /** The literal runs between the stars: {@code prod-*-api} is {@code ["prod-", "-api"]}. */
    private final String[] parts;
    private final boolean wildcard;
    private final int literalLength;

    Glob(String pattern) {
        this.pattern = pattern;
        this.parts = pattern.split("\\*", -1);
        this.wildcard = parts.length > 1;
        this.literalLength = pattern.length() - (parts.length - 1);
    }

    static boolean isGlob(String name) {
        return name.indexOf('*') >= 0;
    }

    String pattern() {
        return pattern;
    }

    boolean matches(String name) {
        if (!wildcard) {
            return pattern.equals(name);
        }
        if (name.length() < literalLength || !name.startsWith(parts[0])) {
            return false;
        }
        // Leftmost placement of each middle run leaves the most room for the rest; the last run ends the name.
        int at = parts[0].length();
        int last = parts.length - 1;
        for (int i = 1; i < last; i++) {
            int found = name.indexOf(parts[i], at);
            if (found < 0) {
                return false;
            }
            at = found + parts[i].length();
        }
        return name.length() - at >= parts[last].length() && name.endsWith(parts[last]);
    }

    /**
     * How many characters of a matching name the stars cover: Nomad's measure of how close a glob is (the smaller,
     * the more specific).
     */
    int distance(String matchingName) {
        return matchingName.length() - literalLength;
    }

    @Override
    public int compareTo(Glob other) {
        return pattern.compareTo(other.pattern);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Glob g && g.pattern.equals(pattern);
    }

    @Override
    public int hashCode() {
        return pattern.hashCode();
    }

    @Override
    public String toString() {
        return pattern;
    }
}
