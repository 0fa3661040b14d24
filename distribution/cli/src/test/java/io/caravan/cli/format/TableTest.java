package io.caravan.cli.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

class TableTest {

    @Test
    void padsEachColumnToItsWidestCellWithoutTrailingSpaces() {
        Table table = new Table("ID", "Type", "Status")
                .row("a-very-long-id", "batch", "")
                .row("x", "service", "running");

        assertEquals(List.of(
                "ID              Type     Status",
                "a-very-long-id  batch",
                "x               service  running"), table.lines());
    }

    @Test
    void raggedRowsAndCustomGlue() {
        List<String> lines = Table.format(List.of(
                List.of("bootstrap", "false"),
                List.of("id"),
                List.of("k", "v", "extra")), " = ");

        assertEquals(List.of(
                "bootstrap = false",
                "id",
                "k         = v     = extra"), lines);
    }

    @Test
    void widthCountsCharactersNotUtf16Units() {
        List<String> lines = Table.format(List.of(List.of("\uD83D\uDE80", "x"), List.of("ab", "y")), "  ");

        assertEquals(List.of("\uD83D\uDE80   x", "ab  y"), lines);
    }
}
