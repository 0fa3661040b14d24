package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP API's limits on the assembled agent: request bodies (and their config key) and huge blocking indexes. */
class ApiLimitsE2EIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path tmp;
    private static AgentProcess agent;

    @BeforeAll
    static void start() throws Exception {
        agent = AgentProcess.startDev(tmp, ", \"limits\": {\"http_max_request_body\": \"64KiB\"}");
    }

    @AfterAll
    static void stop() throws Exception {
        if (agent != null) {
            agent.close();
        }
    }

    private static HttpResponse<String> put(String path, HttpRequest.BodyPublisher body)
            throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(agent.address() + path)).PUT(body)
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A valid job of about {@code bytes} bytes, made large by its meta. */
    private static String job(String id, int bytes) {
        return "{\"Job\":{\"ID\":\"" + id + "\",\"Meta\":{\"pad\":\"" + "x".repeat(bytes) + "\"},\"TaskGroups\":"
                + "[{\"Name\":\"g\",\"Tasks\":[{\"Name\":\"t\",\"Driver\":\"raw_exec\"}]}]}}";
    }

    @Test
    void oversizedBodiesAre413AtOnceAndTheLimitIsConfigurable() throws Exception {
        // 5 MiB, sent whole (no Expect: 100-continue): refused from its Content-Length, before it is read.
        byte[] huge = job("huge", 5 * 1024 * 1024).getBytes(StandardCharsets.UTF_8);
        long start = System.nanoTime();
        HttpResponse<String> refused = put("/v1/jobs", HttpRequest.BodyPublishers.ofByteArray(huge));
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertEquals(413, refused.statusCode(), refused.body());
        assertEquals("Request body too large: the limit is 65536 bytes", refused.body());
        assertTrue(refused.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        assertTrue(millis < 1000, "answered in " + millis + " ms");
        System.out.println("ApiLimitsE2EIT: 5 MiB PUT /v1/jobs refused in " + millis + " ms");

        // The same without a length (chunked): cut off once the limit is read.
        HttpResponse<String> chunked = put("/v1/jobs",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(huge)));
        assertEquals(413, chunked.statusCode(), chunked.body());
        assertEquals(200, agent.get("/v1/agent/health").statusCode(), "the agent is healthy");

        // 100 KiB is over this agent's 64 KiB; after a reload to 1MiB the same job registers.
        String big = job("big", 100 * 1024);
        assertEquals(413, put("/v1/jobs", HttpRequest.BodyPublishers.ofString(big)).statusCode());
        String config = Files.readString(agent.config);
        Files.writeString(agent.config, config.replace("\"64KiB\"", "\"1MiB\""));
        HttpResponse<String> reload = agent.put("/v1/agent/reload");
        assertEquals(200, reload.statusCode(), reload.body());
        assertTrue(reload.body().contains("\"Applied\":[\"limits.http_max_request_body\"]"), reload.body());
        // Config Admin delivers the new value on its own thread: within moments of the reload's answer.
        AgentProcess.await("the new limit applies", Duration.ofSeconds(10), () -> {
            try {
                return put("/v1/jobs", HttpRequest.BodyPublishers.ofString(big)).statusCode() == 200;
            } catch (Exception e) {
                return false;
            }
        });
        assertEquals(200, agent.get("/v1/job/big").statusCode());
    }

    @Test
    void anIndexPastLongMaxBlocksUntilTheWaitEnds() throws Exception {
        for (String index : new String[] {"9223372036854775808", "18446744073709551615"}) {
            long start = System.nanoTime();
            HttpResponse<String> r = agent.get("/v1/jobs?index=" + index + "&wait=2s");
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(200, r.statusCode(), r.body());
            // Before the fix the index wrapped negative and the query answered at once.
            assertTrue(millis >= 1900, index + " answered after " + millis + " ms, without blocking");
        }
        HttpResponse<String> bad = agent.get("/v1/jobs?index=18446744073709551616");
        assertEquals(400, bad.statusCode());
        assertEquals("Invalid index", bad.body());
    }
}
