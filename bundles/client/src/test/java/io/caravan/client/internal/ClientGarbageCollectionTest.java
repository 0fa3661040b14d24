package io.caravan.client.internal;

import static io.caravan.client.internal.testing.Fixtures.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

import io.caravan.api.model.Allocation;
import io.caravan.client.internal.testing.Fixtures;
import io.caravan.client.internal.testing.InMemoryNodeEndpoint;
import io.caravan.client.internal.testing.ProcessTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Nomad's client GC by count: beyond gc_max_allocs, the oldest finished allocations leave the client. */
class ClientGarbageCollectionTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dataDir;

    @Test
    void theOldestFinishedAllocationsAreDestroyedBeyondTheLimit() throws InterruptedException {
        InMemoryNodeEndpoint server = new InMemoryNodeEndpoint();
        Client client = new Client(ClientSettings.from(Map.of("gc.max.allocs", 1L, "gc.interval", "100ms"), dataDir),
                Fixtures.agent("node-1", dataDir), Clock.systemUTC(), Fixtures.fastTiming());
        try {
            client.bindDriver("test", new ProcessTestDriver());
            client.start();
            client.endpoint(server);
            Allocation older = Fixtures.alloc("node-1", "a", "batch", Map.of(), Fixtures.shTask("t", "true"));
            server.place(older);
            await(WAIT, "older complete", () -> server.reportedStatuses(older.id()).contains(Allocation.CLIENT_COMPLETE));
            Path olderDir = client.allocDir(older.id()).orElseThrow();
            Allocation newer = Fixtures.alloc("node-1", "b", "service", Map.of(), Fixtures.shTask("t", "sleep 30"));
            server.place(newer);

            await(WAIT, "older collected", () -> client.allocIds().equals(Set.of(newer.id())));
            await(WAIT, "older dir removed", () -> !Files.exists(olderDir));
            assertTrue(server.alloc(older.id()) != null, "the servers still list it");
            // An update to the collected, terminal allocation does not bring it back.
            server.place(server.alloc(older.id()));
            Thread.sleep(300); // a poll answer and a fetch, at most
            assertEquals(Set.of(newer.id()), client.allocIds());
            await(WAIT, "newer running", () -> server.reportedStatuses(newer.id()).contains(Allocation.CLIENT_RUNNING));
            assertEquals(false, client.gc(newer.id()), "a running allocation is not collected");
            server.stopAlloc(newer.id());
            await(WAIT, "newer complete", () -> server.reportedStatuses(newer.id()).contains(Allocation.CLIENT_COMPLETE));
            await(WAIT, "terminal", () -> client.runner(newer.id()).orElseThrow().terminal());
            assertTrue(client.gc(newer.id()));
            await(WAIT, "collected on request", () -> client.allocIds().isEmpty());
        } finally {
            client.close();
            server.close();
        }
    }
}
