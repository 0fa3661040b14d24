package io.caravan.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Variables through the real agent and the CLI: put, get, list, a check-and-set conflict (409 with the current
 * variable), a lock held around a command, and purge.
 */
class VariablesE2EIT {
    private static Path dir;
    private static AgentProcess agent;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("caravan-vars-");
        agent = AgentProcess.startDev(dir, ", \"data_dir\": \"" + dir.resolve("data") + "\"");
    }

    @AfterAll
    static void stop() throws Exception {
        if (agent != null) {
            agent.close();
        }
        AgentProcess.deleteTree(dir);
    }

    record Run(int code, String output) {}

    /** A {@code caravan} command against the agent, to its end (both streams in {@code output}). */
    private static Run cli(String name, String... args) throws Exception {
        Path log = dir.resolve(name + ".log");
        String[] full = new String[args.length + 1];
        full[0] = args[0];
        full[1] = args[1];
        full[2] = "-address=" + agent.address();
        System.arraycopy(args, 2, full, 3, args.length - 2);
        Process p = AgentProcess.runIn(dir, log, full);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), name + " finishes");
        return new Run(p.exitValue(), AgentProcess.read(log));
    }

    @Test
    void putGetListConflictLockAndPurge() throws Exception {
        Files.writeString(dir.resolve("password.txt"), "s3cret");
        Run put = cli("put", "var", "put", "-out", "none", "app/db", "user=admin", "pass=@password.txt");
        assertEquals(0, put.code(), put.output());
        assertTrue(put.output().startsWith("Created variable \"app/db\" with modify index "), put.output());

        JsonNode stored = agent.json("/v1/var/app/db");
        assertEquals("admin", stored.get("Items").get("user").asText());
        assertEquals("s3cret", stored.get("Items").get("pass").asText());
        long index = stored.get("ModifyIndex").asLong();
        assertEquals(200, agent.call("HEAD", "/v1/var/app/db", null, null).statusCode());

        Run item = cli("get-item", "var", "get", "-item", "pass", "app/db");
        assertEquals(0, item.code(), item.output());
        assertEquals("s3cret", item.output());

        Run list = cli("list", "var", "list", "-q", "app/");
        assertEquals(0, list.code(), list.output());
        assertEquals("app/db\n", list.output());
        JsonNode listed = agent.json("/v1/vars?prefix=app/");
        assertEquals(1, listed.size());
        assertFalse(listed.get(0).has("Items"), "the list holds metadata only: " + listed);

        // A second create of the same path: the CLI's default check-and-set (0: must not exist) conflicts.
        Run conflict = cli("conflict", "var", "put", "app/db", "user=other");
        assertEquals(1, conflict.code(), conflict.output());
        assertTrue(conflict.output().contains("Check-and-Set conflict"), conflict.output());
        assertTrue(conflict.output().contains("-check-index=" + index), conflict.output());
        HttpResponse<String> raw = agent.call("PUT", "/v1/var/app/db?cas=1", null,
                "{\"Items\": {\"user\": \"other\"}}");
        assertEquals(409, raw.statusCode(), raw.body());
        assertEquals(index, AgentProcess.JSON.readTree(raw.body()).get("ModifyIndex").asLong());
        assertEquals("admin", agent.json("/v1/var/app/db").get("Items").get("user").asText(), "nothing written");

        Run update = cli("update", "var", "put", "-check-index", Long.toString(index), "-out", "json", "app/db",
                "user=other");
        assertEquals(0, update.code(), update.output());
        assertEquals("other", agent.json("/v1/var/app/db").get("Items").get("user").asText());

        Run lock = cli("lock", "var", "lock", "locks/job", "echo", "while-locked");
        assertEquals(0, lock.code(), lock.output());
        assertTrue(lock.output().contains("while-locked"), lock.output());
        assertFalse(agent.json("/v1/var/locks/job").has("Lock"), "released after the command");

        HttpResponse<String> bad = agent.call("PUT", "/v1/var/a%2E%2E/b", null, "{\"Items\": {\"k\": \"v\"}}");
        assertEquals(400, bad.statusCode(), bad.body());

        Run purge = cli("purge", "var", "purge", "app/db");
        assertEquals(0, purge.code(), purge.output());
        assertEquals("Successfully purged variable \"app/db\"!\n", purge.output());
        HttpResponse<String> gone = agent.get("/v1/var/app/db");
        assertEquals(404, gone.statusCode());
        assertTrue(gone.body().contains("variable not found"), gone.body());
        Run missing = cli("get-missing", "var", "get", "app/db");
        assertEquals(1, missing.code());
        assertEquals("Variable not found\n", missing.output());
    }
}
