package io.caravan.cli.format;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Aligned columns in the style of Nomad's {@code columnize}: each column is padded to its widest cell, cells are
 * joined by a glue ({@code "  "} for tables, {@code " = "} for key/value lists), trailing spaces are trimmed.
 */
public final class Table {
    private final List<List<String>> rows = new ArrayList<>();
    private String placeholder = "";

    public Table(String... header) {
        if (header.length > 0) {
            rows.add(List.of(header));
        }
    }

    public Table row(String... cells) {
        return row(List.of(cells));
    }

    public Table row(List<String> cells) {
        rows.add(List.copyOf(cells));
        return this;
    }

    /** Shows empty cells as {@code text}, as Nomad's lists do with {@code <none>} (keeps columns awk-able). */
    public Table placeholder(String text) {
        placeholder = text;
        return this;
    }

    public boolean isEmpty() {
        return rows.size() <= 1;
    }

    /** Table layout: two spaces between columns. */
    public List<String> lines() {
        if (placeholder.isEmpty()) {
            return format(rows, "  ");
        }
        List<List<String>> filled = new ArrayList<>(rows.size());
        for (List<String> row : rows) {
            filled.add(row.stream().map(c -> c == null || c.isEmpty() ? placeholder : c).toList());
        }
        return format(filled, "  ");
    }

    public void print(PrintWriter out) {
        lines().forEach(out::println);
    }

    /** Lays out {@code rows} with {@code glue} between columns; rows may have fewer cells than others. */
    public static List<String> format(List<List<String>> rows, String glue) {
        List<Integer> widths = new ArrayList<>();
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                int width = width(row.get(i));
                if (i == widths.size()) {
                    widths.add(width);
                } else if (width > widths.get(i)) {
                    widths.set(i, width);
                }
            }
        }
        List<String> lines = new ArrayList<>(rows.size());
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                if (i > 0) {
                    line.append(glue);
                }
                String cell = row.get(i) == null ? "" : row.get(i);
                line.append(cell);
                if (i < row.size() - 1) {
                    line.append(" ".repeat(widths.get(i) - width(cell)));
                }
            }
            lines.add(line.toString().stripTrailing());
        }
        return lines;
    }

    private static int width(String cell) {
        return cell == null ? 0 : cell.codePointCount(0, cell.length());
    }
}
