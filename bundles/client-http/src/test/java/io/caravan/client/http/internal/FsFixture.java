package io.caravan.client.http.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.http.ApiResponse;
import io.caravan.http.RawBody;
import io.caravan.http.StreamingBody;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** An allocation directory in Nomad's layout, a file outside it, and the routes over a real scheduler. */
abstract class FsFixture {
    static final String ALLOC = "5f1c2f4e-0b5a-4d6e-9c1f-2a3b4c5d6e7f";
    static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path temp;
    Path allocDir;
    Path outside;
    TestAllocs allocs;
    ScheduledExecutorService scheduler;
    ClientFsRoutes routes;

    @BeforeEach
    void createAllocDir() throws IOException {
        allocDir = temp.resolve("data/alloc").resolve(ALLOC);
        for (String dir : new String[] {"alloc/data", "alloc/logs", "alloc/tmp", "web/local", "web/secrets",
                "web/tmp"}) {
            Files.createDirectories(allocDir.resolve(dir));
        }
        write("web/local/hello.txt", "hello world\n");
        write("alloc/data/config.json", "{\"a\":1}");
        write("web/secrets/token", "s3cret");
        outside = Files.createDirectories(temp.resolve("outside"));
        Files.writeString(outside.resolve("passwd"), "root:x:0:0", StandardCharsets.UTF_8);
        allocs = new TestAllocs();
        allocs.dirs.put(ALLOC, allocDir);
        scheduler = Executors.newScheduledThreadPool(2);
        routes = new ClientFsRoutes(allocs, scheduler, System::currentTimeMillis);
    }

    @AfterEach
    void stop() throws InterruptedException {
        routes.deactivate();
    }

    Path write(String rel, String content) throws IOException {
        Path p = allocDir.resolve(rel);
        Files.writeString(p, content, StandardCharsets.UTF_8);
        return p;
    }

    static void append(Path file, String content) throws IOException {
        Files.writeString(file, content, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND,
                java.nio.file.StandardOpenOption.CREATE);
    }

    /** Starts a streaming answer against a capturing client. */
    static CapturingWriter start(ApiResponse response) {
        CapturingWriter writer = new CapturingWriter();
        ((StreamingBody) response.body()).start(writer);
        return writer;
    }

    /** The whole body of an answer that ends by itself (raw or a stream that is not following). */
    static byte[] body(ApiResponse response) throws InterruptedException {
        if (response.body() instanceof RawBody raw) {
            return raw.bytes();
        }
        CapturingWriter writer = start(response);
        if (!writer.awaitClose(WAIT)) {
            throw new AssertionError("stream did not end; got " + new String(writer.bytes(), StandardCharsets.UTF_8));
        }
        return writer.bytes();
    }

    static String text(ApiResponse response) throws InterruptedException {
        return new String(body(response), StandardCharsets.UTF_8);
    }
}
