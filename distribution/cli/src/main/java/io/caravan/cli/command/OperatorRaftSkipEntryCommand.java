package io.caravan.cli.command;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Callable;

import io.caravan.cli.Context;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan operator raft skip-entry -data-dir DIR INDEX}: the way out when a server stops because applying a
 * log entry failed (the agent log names the index and this command). Offline, on the stopped server's data directory:
 * adds the index to {@code server/raft/skip-entries}, which the server reads at start and passes over that entry. Run
 * it on every server, since every replica must pass over the same entries. A Caravan command (Nomad has none).
 */
@Command(name = "skip-entry", description = "Pass over a Raft log entry that stops the server (offline, on every "
        + "server's data directory, while the servers are stopped).")
public final class OperatorRaftSkipEntryCommand implements Callable<Integer> {
    /** Where the consensus bundle keeps the Raft log below {@code data_dir}, and the file it reads at start. */
    static final Path SKIP_FILE = Path.of("server", "raft", "skip-entries");

    @Mixin
    HelpOption help;

    @Option(names = {"-data-dir", "--data-dir"}, required = true, paramLabel = "<path>",
            description = "The server's data_dir.")
    Path dataDir;

    @Parameters(index = "0", paramLabel = "<index>", description = "The log index to pass over.")
    long index;

    private final Context ctx;

    public OperatorRaftSkipEntryCommand(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws IOException {
        if (index < 1) {
            ctx.err().println("Error: the index must be a positive log index, was " + index);
            return 1;
        }
        Path raftDir = dataDir.resolve(SKIP_FILE).getParent();
        if (!Files.isDirectory(raftDir)) {
            ctx.err().println("Error: no Raft log at " + raftDir + " (is " + dataDir + " a server's data_dir?)");
            return 1;
        }
        Path file = dataDir.resolve(SKIP_FILE);
        String existing = Files.exists(file) ? Files.readString(file) : "";
        if (existing.lines().map(String::trim).anyMatch(Long.toString(index)::equals)) {
            ctx.out().println("Log entry " + index + " is already skipped in " + file);
            return 0;
        }
        // Written aside and renamed: a server never reads half a file.
        Path partial = Files.createTempFile(raftDir, "skip-entries", ".tmp");
        Files.writeString(partial, existing + (existing.isEmpty() || existing.endsWith("\n") ? "" : "\n") + index
                + "\n", StandardCharsets.UTF_8);
        Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        ctx.out().println("Log entry " + index + " will be passed over when this server starts (" + file + "). "
                + "Do the same on every server.");
        return 0;
    }
}
