package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.util.Locale;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP API's limits on the assembled agent: request bodies (and their config key), huge blocking indexes, and
 * hostile HCL sent to {@code /v1/jobs/parse} (each refused with a plain-text 4xx within moments, never a 500 or an
 * HTML page, and without the agent's memory growing).
 */
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

    /** A job whose meta {@code v} is {@code expr}, and a variable whose default is {@code expr}. */
    private static String[] jobsWith(String expr) {
        String task = "  group \"g\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n    }\n  }\n}\n";
        return new String[] {
            "job \"h\" {\n  meta {\n    v = " + expr + "\n  }\n" + task,
            "variable \"v\" {\n  default = " + expr + "\n}\njob \"h\" {\n  meta {\n    v = \"${var.v}\"\n  }\n" + task,
        };
    }

    /**
     * {@code POST /v1/jobs/parse} of {@code hcl}: answered within 5 s (CI is slow; on a 2-core VM it takes well
     * under a second) with a 4xx and a plain-text body that is not an HTML page.
     */
    private static HttpResponse<String> refusesQuickly(String hcl) throws Exception {
        return refusesQuickly(hcl, true);
    }

    private static HttpResponse<String> refusesQuickly(String hcl, boolean log) throws Exception {
        String body = AgentProcess.JSON.writeValueAsString(AgentProcess.JSON.createObjectNode().put("JobHCL", hcl));
        long start = System.nanoTime();
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(agent.address() + "/v1/jobs/parse"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        long millis = (System.nanoTime() - start) / 1_000_000;
        String what = hcl.substring(0, Math.min(80, hcl.length())) + "... -> " + r.statusCode() + " in " + millis
                + " ms: " + r.body().substring(0, Math.min(300, r.body().length()));
        assertTrue(r.statusCode() >= 400 && r.statusCode() < 500, what);
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"), what);
        assertFalse(r.body().isBlank(), what);
        assertFalse(r.body().toLowerCase(Locale.ROOT).contains("<html"), what);
        assertTrue(millis < 5000, what);
        if (log) {
            System.out.println("ApiLimitsE2EIT: " + what.replace('\n', ' '));
        }
        return r;
    }

    @Test
    void longOperatorChainsAre400() throws Exception {
        for (int operands : new int[] {2_000, 20_000}) {
            for (String job : jobsWith("1" + "+1".repeat(operands - 1))) {
                assertEquals(400, refusesQuickly(job).statusCode());
            }
        }
    }

    @Test
    void longTraversalChainsAre400() throws Exception {
        for (String chain : new String[] {"x" + ".y".repeat(5_000), "[0]" + "[0]".repeat(5_000)}) {
            for (String job : jobsWith(chain)) {
                assertEquals(400, refusesQuickly(job).statusCode());
            }
        }
    }

    @Test
    void aTenMegabyteHeredocIs413() throws Exception {
        String heredoc = "<<EOT\n" + "x".repeat(99) + "\n".repeat(1) + ("y".repeat(99) + "\n").repeat(100_000) + "EOT";
        HttpResponse<String> r = refusesQuickly(jobsWith(heredoc)[0]);
        assertEquals(413, r.statusCode(), r.body());
    }

    @Test
    void functionsWhoseResultsExplodeAre400() throws Exception {
        String list = "[" + "\"x\",".repeat(200) + "]";
        for (String expr : new String[] {
            "format(\"%100000000d\", 1)",
            "formatlist(\"%100000000d\", [1])",
            "range(1e9)",
            "join(\",\", range(1e9))",
            "replace(replace(replace(replace(replace(replace(replace(replace(\"" + "x".repeat(100)
                    + "\", \"x\", \"xxxxxxxxxx\"), \"x\", \"xxxxxxxxxx\"), \"x\", \"xxxxxxxxxx\"), \"x\", \"xxxxxxxxxx\"),"
                    + " \"x\", \"xxxxxxxxxx\"), \"x\", \"xxxxxxxxxx\"), \"x\", \"xxxxxxxxxx\"), \"x\", \"xxxxxxxxxx\")",
            "join(\",\", [for a in " + list + " : join(\",\", [for b in " + list + " : join(\",\", [for c in "
                    + list + " : \"xxxxxxxxxx\"])])])",
        }) {
            for (String job : jobsWith(expr)) {
                assertEquals(400, refusesQuickly(job).statusCode());
            }
        }
    }

    @Test
    void manyHostileRequestsLeaveTheAgentSmall() throws Exception {
        String[] hostile = {
            jobsWith("1" + "+1".repeat(19_999))[0],
            jobsWith("x" + ".y".repeat(5_000))[1],
            jobsWith("format(\"%100000000d\", 1)")[0],
            jobsWith("join(\",\", [for a in " + "[" + "\"x\",".repeat(200) + "]" + " : join(\",\", [for b in ["
                    + "\"x\",".repeat(200) + "] : \"" + "y".repeat(500) + "\"])])")[1],
        };
        long start = System.nanoTime();
        for (int i = 0; i < 200; i++) {
            refusesQuickly(hostile[i % hostile.length], false);
        }
        System.out.println("ApiLimitsE2EIT: 200 hostile requests refused in " + (System.nanoTime() - start) / 1_000_000
                + " ms");
        assertEquals(200, agent.get("/v1/agent/health").statusCode(), "the agent is healthy");
        long rssKib = rssKib(agent.process.toHandle());
        System.out.println("ApiLimitsE2EIT: agent RSS after 200 hostile requests: " + rssKib / 1024 + " MiB");
        assertTrue(rssKib < 300 * 1024, "agent RSS " + rssKib / 1024 + " MiB");
    }

    /** The resident memory of the agent: its launcher script and the JVM under it, whichever is larger. */
    private static long rssKib(ProcessHandle process) throws Exception {
        long max = 0;
        for (ProcessHandle p : Stream.concat(Stream.of(process), process.descendants()).toList()) {
            Path status = Path.of("/proc/" + p.pid() + "/status");
            if (Files.exists(status)) {
                for (String line : Files.readAllLines(status)) {
                    if (line.startsWith("VmRSS:")) {
                        max = Math.max(max, Long.parseLong(line.replaceAll("[^0-9]", "")));
                    }
                }
            }
        }
        assertTrue(max > 0, "no RSS found for the agent's processes");
        return max;
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
