package io.caravan.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import io.caravan.client.internal.state.ClientStateStore;
import io.caravan.rpc.Rpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KnownServersTest {

    /** The RPC layer's server list, nothing else. */
    static final class ListRpc implements Rpc {
        volatile List<String> servers;

        ListRpc(List<String> configured) {
            servers = List.copyOf(configured);
        }

        public <R> CompletionStage<R> dispatch(String method, Object request, Class<R> response) {
            throw new UnsupportedOperationException();
        }

        public <R> CompletionStage<R> call(String method, Object request, Class<R> response) {
            throw new UnsupportedOperationException();
        }

        public <R> CompletionStage<R> callAt(String address, String method, Object request, Class<R> response) {
            throw new UnsupportedOperationException();
        }

        public CompletionStage<io.caravan.rpc.RpcStream> openNodeStream(String nodeId, String method,
                                                                        Object request) {
            throw new UnsupportedOperationException(method);
        }

        public CompletionStage<io.caravan.rpc.RpcStream> openStreamAt(String address, String method,
                                                                      Object request) {
            throw new UnsupportedOperationException(method);
        }

        public <R> CompletionStage<R> callNode(String nodeId, String method, Object request, Class<R> response) {
            throw new UnsupportedOperationException();
        }

        public List<EndpointStats> stats() {
            return List.of();
        }

        public List<String> servers() {
            return servers;
        }

        public void setServers(List<String> addresses) {
            servers = List.copyOf(addresses);
        }
    }

    @Test
    void learnedServersSurviveARestartAfterTheConfiguredOnes(@TempDir Path dir) {
        // First run: configured with one server, told of three by the servers' replies.
        ListRpc first = new ListRpc(List.of("10.0.0.1:4647"));
        KnownServers running = new KnownServers(first, new ClientStateStore(dir), false);
        first.setServers(List.of("10.0.0.2:4647", "10.0.0.3:4647", "10.0.0.1:4647"));
        running.save();
        running.deactivate();
        assertTrue(Files.isRegularFile(dir.resolve("servers.json")));

        // Second run: the configured server first, then the ones learned before.
        ListRpc second = new ListRpc(List.of("10.0.0.1:4647"));
        KnownServers again = new KnownServers(second, new ClientStateStore(dir), false);
        try {
            assertEquals(List.of("10.0.0.1:4647", "10.0.0.2:4647", "10.0.0.3:4647"), second.servers());
        } finally {
            again.deactivate();
        }
    }

    @Test
    void aReorderedListIsNotRewrittenAndAnEmptyOneNeverSaved(@TempDir Path dir) throws Exception {
        ClientStateStore store = new ClientStateStore(dir);
        ListRpc rpc = new ListRpc(List.of());
        KnownServers known = new KnownServers(rpc, store, false);
        try {
            known.save();
            assertFalse(Files.exists(dir.resolve("servers.json")), "nothing learned, nothing written");
            rpc.setServers(List.of("a:4647", "b:4647"));
            known.save();
            assertEquals(List.of("a:4647", "b:4647"), store.servers());
            rpc.setServers(List.of("b:4647", "a:4647"));   // a failing server moved to the end
            known.save();
            assertEquals(List.of("a:4647", "b:4647"), store.servers(), "same servers: the file stays");
        } finally {
            known.deactivate();
        }
    }

    @Test
    void aServerAgentsClientLeavesTheListAlone(@TempDir Path dir) {
        ClientStateStore store = new ClientStateStore(dir);
        store.saveServers(List.of("10.0.0.9:4647"));
        ListRpc rpc = new ListRpc(new ArrayList<>());
        KnownServers known = new KnownServers(rpc, store, true);
        known.deactivate();
        assertEquals(List.of(), rpc.servers());
    }

    @Test
    void anUnreadableFileIsIgnored(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("servers.json"), "{not json");
        ListRpc rpc = new ListRpc(List.of("10.0.0.1:4647"));
        KnownServers known = new KnownServers(rpc, new ClientStateStore(dir), false);
        known.deactivate();
        assertEquals(List.of("10.0.0.1:4647"), rpc.servers());
    }
}
