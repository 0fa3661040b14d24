package io.caravan.cli.command;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan operator snapshot restore FILE}: replaces the servers' whole state with a saved snapshot. The file is
 * checked here and again by the server; a bad one changes nothing.
 */
@Command(name = "restore", description = "Restore the servers' state from a snapshot file.")
public final class OperatorSnapshotRestoreCommand extends HttpCommand {
    @Parameters(index = "0", paramLabel = "<file>", description = "A file written by 'operator snapshot save'.")
    Path file;

    public OperatorSnapshotRestoreCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Failed to restore snapshot";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ApiException("cannot read " + file + ": " + e.getMessage());
        }
        try {
            SnapshotFile.read(bytes);
        } catch (IllegalArgumentException e) {
            throw new ApiException(file + ": " + e.getMessage());
        }
        api.putBytes("/v1/operator/snapshot", Map.of(), bytes);
        ctx.out().println("Snapshot Restored");
        return 0;
    }
}
