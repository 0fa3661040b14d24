package io.caravan.cli.command;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan operator snapshot save [-stale] FILE}: the servers' state to a file, checked once written (as Nomad's
 * save verifies what it received); the file is only put in place when it checks out.
 */
@Command(name = "save", description = "Save a snapshot of the servers' state to a file.")
public final class OperatorSnapshotSaveCommand extends HttpCommand {
    @Option(names = {"-stale", "--stale"}, arity = "0..1", fallbackValue = "true", converter = GoBool.class,
            paramLabel = "<bool>", description = "Let any server answer, not only the leader.")
    boolean stale;

    @Parameters(index = "0", paramLabel = "<file>", description = "Where to write the snapshot.")
    Path file;

    public OperatorSnapshotSaveCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Failed to get snapshot file";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        Path target = file.toAbsolutePath();
        try {
            Path partial = Files.createTempFile(target.getParent(), target.getFileName() + ".", ".partial");
            try {
                try (OutputStream out = Files.newOutputStream(partial)) {
                    api.copy("/v1/operator/snapshot", stale ? Map.of("stale", "true") : Map.of(), out);
                }
                SnapshotFile.read(Files.readAllBytes(partial));
                Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(partial);
            }
        } catch (IOException e) {
            throw new ApiException("cannot write " + target + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new ApiException("the snapshot received does not verify: " + e.getMessage());
        }
        ctx.out().println("State file written to " + file);
        return 0;
    }
}
