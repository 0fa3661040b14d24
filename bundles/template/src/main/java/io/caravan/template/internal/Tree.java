package io.caravan.template.internal;

/**
 * One named template: its body and the source it was parsed from ({@code parseName} names that source, which is
 * what error positions refer to, as in Go).
 */
public record Tree(String name, String parseName, String source, Node.ListNode root) {

    /** True when the body has nothing but white space: Go keeps an earlier definition over such a one. */
    public boolean isEmpty() {
        for (Node n : root.nodes()) {
            if (!(n instanceof Node.TextNode t) || !t.text().isBlank()) return false;
        }
        return true;
    }

    /** The body printed back as Go's parse package prints it (text quoted when asked). */
    public String printed(boolean quoteText) {
        return root.print(quoteText);
    }

    /** {@code NAME:LINE:COL} for an offset in the source, Go's way (column counted from 0). */
    String location(int pos) {
        int[] lc = lineColumn(source, pos);
        return parseName + ":" + lc[0] + ":" + lc[1];
    }

    static int[] lineColumn(String source, int pos) {
        pos = Math.max(0, Math.min(pos, source.length()));
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < pos; i++) {
            if (source.charAt(i) == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        return new int[] {line, pos - lineStart};
    }
}
