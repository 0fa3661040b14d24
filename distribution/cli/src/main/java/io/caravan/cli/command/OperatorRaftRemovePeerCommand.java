package io.caravan.cli.command;

import java.util.Map;

import io.caravan.cli.Context;
import io.caravan.cli.format.Nomad;
import io.caravan.cli.http.ApiClient;
import io.caravan.cli.http.ApiException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code caravan operator raft remove-peer -peer-id=ID | -peer-address=ADDR}: drops a server that is gone for good
 * from the Raft configuration. Exactly one of the two flags; exit 1 otherwise or when the servers refuse.
 */
@Command(name = "remove-peer", description = {
        "Remove a server from the Raft configuration.",
        "For a peer left behind in the quorum by a server that no longer exists. A server still listed by "
                + "'server members' is better removed with 'server force-leave'."})
public final class OperatorRaftRemovePeerCommand extends HttpCommand {
    static final String PATH = "/v1/operator/raft/peer";

    @Option(names = {"-peer-id", "--peer-id"}, paramLabel = "<id>",
            description = "Raft ID of the server to remove (the ID column of 'operator raft list-peers').")
    String peerId = "";

    @Option(names = {"-peer-address", "--peer-address"}, paramLabel = "<ip:port>",
            description = "Raft address of the server to remove.")
    String peerAddress = "";

    public OperatorRaftRemovePeerCommand(Context ctx) {
        super(ctx);
    }

    @Override
    protected String errorPrefix() {
        return "Error removing peer";
    }

    @Override
    protected int run(ApiClient api) throws ApiException {
        if (peerId.isEmpty() && peerAddress.isEmpty()) {
            throw new ApiException("an address or id is required for the peer to remove");
        }
        if (!peerId.isEmpty() && !peerAddress.isEmpty()) {
            throw new ApiException("cannot give both an address and id");
        }
        if (!peerAddress.isEmpty()) {
            api.delete(PATH, Map.of("address", peerAddress));
            ctx.out().println("Removed peer with address " + Nomad.quote(peerAddress));
        } else {
            api.delete(PATH, Map.of("id", peerId));
            ctx.out().println("Removed peer with id " + Nomad.quote(peerId));
        }
        return 0;
    }
}
