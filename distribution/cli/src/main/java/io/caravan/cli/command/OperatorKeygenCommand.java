package io.caravan.cli.command;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.Callable;

import io.caravan.cli.Context;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code caravan operator keygen}: prints a new gossip encryption key, local only (no agent). As Nomad's current
 * keygen (an alias of {@code operator gossip keyring generate}): 32 random bytes from a strong generator, standard
 * base64 with padding, one line.
 */
@Command(name = "keygen", description = "Generate a new 32-byte gossip encryption key, base64-encoded.")
public final class OperatorKeygenCommand implements Callable<Integer> {
    static final int KEY_BYTES = 32;

    @Mixin
    HelpOption help;

    private final Context ctx;
    private final SecureRandom random;

    public OperatorKeygenCommand(Context ctx) {
        this(ctx, new SecureRandom());
    }

    OperatorKeygenCommand(Context ctx, SecureRandom random) {
        this.ctx = ctx;
        this.random = random;
    }

    @Override
    public Integer call() {
        byte[] key = new byte[KEY_BYTES];
        random.nextBytes(key);
        ctx.out().println(Base64.getEncoder().encodeToString(key));
        return 0;
    }
}
