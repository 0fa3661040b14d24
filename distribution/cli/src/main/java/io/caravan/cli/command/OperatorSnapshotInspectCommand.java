package io.caravan.cli.command;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan operator snapshot inspect FILE}: what a snapshot file holds (ID, size, index, term, version, rows per
 * table), as Nomad's inspect shows; offline, and the file is verified first.
 */
@Command(name = "inspect", description = "Show the metadata and table sizes of a snapshot file.")
public final class OperatorSnapshotInspectCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Parameters(index = "0", paramLabel = "<file>", description = "A file written by 'operator snapshot save'.")
    Path file;

    private final Context ctx;

    public OperatorSnapshotInspectCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() {
        SnapshotFile snapshot;
        try {
            snapshot = SnapshotFile.read(Files.readAllBytes(file));
        } catch (IOException e) {
            ctx.err().println("Error reading snapshot: " + e.getMessage());
            return 1;
        } catch (IllegalArgumentException e) {
            ctx.err().println("Error verifying snapshot: " + e.getMessage());
            return 1;
        }
        JsonNode meta = snapshot.meta();
        ctx.out().printf("%-8s = %s%n", "ID", meta.path("ID").asText());
        ctx.out().printf("%-8s = %d%n", "Size", snapshot.stateBytes());
        ctx.out().printf("%-8s = %d%n", "Index", meta.path("Index").asLong());
        ctx.out().printf("%-8s = %d%n", "Term", meta.path("Term").asLong());
        ctx.out().printf("%-8s = %d%n", "Version", meta.path("Version").asInt());
        ctx.out().println();
        ctx.out().printf("%-28s %s%n", "Type", "Count");
        ctx.out().printf("%-28s %s%n", "----", "-----");
        long total = 0;
        var tables = meta.path("Tables").fields();
        while (tables.hasNext()) {
            var table = tables.next();
            total += table.getValue().asLong();
            ctx.out().printf("%-28s %d%n", table.getKey(), table.getValue().asLong());
        }
        ctx.out().printf("%-28s %s%n", "", "-----");
        ctx.out().printf("%-28s %d%n", "Total", total);
        return 0;
    }
}
