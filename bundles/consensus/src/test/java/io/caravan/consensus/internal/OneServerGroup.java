package io.caravan.consensus.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** For tests of a real one-server Raft group: a temp dir, the node they start, closed after each test. */
abstract class OneServerGroup {
    static final Duration READY = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    RaftNode node;

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    /** Starts a node on {@code settings} and waits until it leads. */
    RaftNode started(RaftSettings settings, io.caravan.consensus.CommandHandler handler) throws Exception {
        node = new RaftNode(settings, handler, System::currentTimeMillis);
        node.start();
        assertTrue(node.awaitReady(READY), "no leader within " + READY);
        return node;
    }
}
