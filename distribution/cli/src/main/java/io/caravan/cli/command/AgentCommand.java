package io.caravan.cli.command;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;

import io.caravan.cli.Context;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code caravan agent}: boots the agent in this JVM. The agent bundle parses Nomad's agent flags, so this
 * command passes every argument through untouched. {@code Main} calls {@link #launch} before picocli parses
 * anything; the picocli registration only puts {@code agent} into {@code caravan -h}.
 */
@Command(name = "agent", description = "Runs a Caravan agent.")
public final class AgentCommand implements Callable<Integer> {

    private static final Set<String> HELP = Set.of("-h", "-help", "--help");

    static final String USAGE = """
            Usage: caravan agent [options]

              Starts the Caravan agent and runs until it is interrupted. The agent is a
              server, a client or both; most settings come from configuration files, and
              the flags below override them.

            General Options:
              -dev                    Start a single in-memory server and client for development.
              -config=<path>          A config file or a directory of them; may be repeated.
              -data-dir=<path>        Where the agent keeps its state.
              -bind=<addr>            Address every listener binds to (default 127.0.0.1).
              -region=<region>        Region of the agent (default "global").
              -dc=<datacenter>        Datacenter of the agent (default "dc1").
              -node=<name>            Name of this node (default: the host name).
              -log-level=<level>      trace, debug, info, warn or error.
              -plugin-dir=<path>      Directory to load plugin bundles from.

            Server Options:
              -server                 Run the server role.
              -bootstrap-expect=<n>   Wait for this many servers before electing a leader.
              -retry-join=<addr>      A server to join, retried until it answers; may be repeated.
              -encrypt=<key>          Base64 key that encrypts gossip traffic.

            Client Options:
              -client                 Run the client role.
              -servers=<addr,...>     Servers the client registers with.

            ACL Options:
              -acl-enabled            Enforce ACL tokens.
            """;

    @Unmatched
    List<String> args = new ArrayList<>();

    private final Context ctx;
    private final Function<List<String>, Integer> launcher;

    public AgentCommand(Context ctx, Function<List<String>, Integer> launcher) {
        this.ctx = ctx;
        this.launcher = launcher;
    }

    @Override
    public Integer call() {
        return launch(args);
    }

    /** Runs the agent with exactly {@code agentArgs}; returns its exit code. */
    public int launch(List<String> agentArgs) {
        if (wantsHelp(agentArgs)) {
            ctx.out().print(USAGE);
            return 0;
        }
        // The agent writes to System.out/err directly from here on.
        ctx.out().flush();
        ctx.err().flush();
        try {
            return launcher.apply(List.copyOf(agentArgs));
        } catch (RuntimeException e) {
            ctx.err().println("Error starting agent: " + e.getMessage());
            return 1;
        }
    }

    /** Go's flag package stops at "--", so a help flag after it is an argument, not a request for help. */
    private static boolean wantsHelp(List<String> agentArgs) {
        for (String arg : agentArgs) {
            if (arg.equals("--")) {
                return false;
            }
            if (HELP.contains(arg)) {
                return true;
            }
        }
        return false;
    }
}
