package io.caravan.cli.command;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import io.caravan.cli.Context;
import io.caravan.cli.format.Json;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code caravan server join <addr>...}: asks the agent's server to gossip-join the given servers, one
 * {@code address} query parameter each. Exit 0 when at least one was joined, else 1 with the agent's reason.
 */
@Command(name = "join", description = {
        "Join the local server to one or more other servers.",
        "One reachable address is enough: once joined, gossip finds the rest of the cluster."})
public final class ServerJoinCommand extends HttpCommand {
    static final String PATH = "/v1/agent/join";

    @Parameters(arity = "0..*", paramLabel = "<addr>", description = "Gossip address of a server (host[:port]).")
    List<String> addresses = List.of();

    public ServerJoinCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error joining";
    }

    @Override
    protected int run(ApiClient api) throws ApiException, UsageException {
        if (addresses.isEmpty()) {
            throw new UsageException("One or more node addresses must be given as arguments");
        }
        JsonNode reply;
        try {
            reply = api.put(PATH, "address", addresses);
        } catch (ApiException e) {
            throw new ApiException("failed joining: " + e.getMessage());
        }
        String error = Json.text(reply.get("error"));
        if (!error.isEmpty()) {
            throw new ApiException("failed joining: " + error);
        }
        long joined = reply.path("num_joined").asLong();
        if (joined <= 0) {
            throw new ApiException("failed joining: no server could be joined");
        }
        ctx.out().println("Joined " + joined + " servers successfully");
        return 0;
    }
}
