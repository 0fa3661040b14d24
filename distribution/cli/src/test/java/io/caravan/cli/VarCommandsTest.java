package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VarCommandsTest extends FakeAgentTest {
    private static final String PATH = "/v1/var/app/db";
    private static final String VAR = """
            {"Namespace":"default","Path":"app/db","Items":{"user":"admin","pass":"s3cret"},
             "CreateIndex":12,"CreateTime":1700000000000000000,"ModifyIndex":15,"ModifyTime":1700000060000000000}""";

    private Map<String, String> env;

    @TempDir
    Path dir;

    @BeforeEach
    void environment() {
        env = Map.of("CARAVAN_ADDR", agent.address(), "TZ", "UTC");
    }

    private static JsonNode json(String text) throws Exception {
        return new ObjectMapper().readTree(text);
    }

    @Test
    void putSendsTheItemsAsACheckAndSetOnANewVariable() throws Exception {
        agent.json(PATH, VAR);
        Cli.Result r = Cli.run(env, "var", "put", "-out", "none", "app/db", "user=admin", "pass=s3cret");
        assertEquals(0, r.code(), r.err());
        assertEquals("Created variable \"app/db\" with modify index 15\n", r.out());
        FakeAgent.Request put = agent.last(PATH);
        assertEquals("PUT", put.method());
        assertEquals("namespace=default&cas=0", put.query());
        JsonNode body = json(put.body());
        assertEquals("app/db", body.get("Path").asText());
        assertEquals("admin", body.get("Items").get("user").asText());
        assertEquals("s3cret", body.get("Items").get("pass").asText());
    }

    @Test
    void putPrintsJsonByDefaultOffATerminalAndHclOrATemplateWhenAsked() throws Exception {
        agent.json(PATH, VAR);
        Cli.Result r = Cli.run(env, "var", "put", "app/db", "user=admin");
        assertEquals(0, r.code(), r.err());
        assertEquals(15, json(r.out()).get("ModifyIndex").asLong());
        Cli.Result hcl = Cli.run(env, "var", "put", "-out", "hcl", "app/db", "user=admin");
        assertTrue(hcl.out().contains("path         = \"app/db\""), hcl.out());
        assertTrue(hcl.out().contains("  user = \"admin\""), hcl.out());
        Cli.Result tpl = Cli.run(env, "var", "put", "-out", "go-template", "-template",
                "{{ .Path }}:{{ .Items.user }}:{{ index .Items \"pass\" }}", "app/db", "user=admin");
        assertEquals("app/db:admin:s3cret\n", tpl.out(), tpl.err());
        Cli.Result unsupported = Cli.run(env, "var", "put", "-out", "go-template", "-template",
                "{{ range .Items }}x{{ end }}", "app/db", "user=admin");
        assertEquals(1, unsupported.code());
        assertTrue(unsupported.err().contains("unsupported action"), unsupported.err());
    }

    @Test
    void aConflictPrintsTheServerIndexAndExitsOne() {
        agent.reply(PATH, 409, VAR);
        Cli.Result r = Cli.run(env, "var", "put", "app/db", "user=x");
        assertEquals(1, r.code());
        assertTrue(r.err().contains("Check-and-Set conflict"), r.err());
        assertTrue(r.err().contains("check-index (0) does not match the server-side index (15)"), r.err());
        assertTrue(r.err().contains("-check-index=15"), r.err());
    }

    @Test
    void forceAndCheckIndexChooseTheWrite() {
        agent.json(PATH, VAR);
        assertEquals(0, Cli.run(env, "var", "put", "-force", "app/db", "k=v").code());
        assertEquals("namespace=default", agent.last(PATH).query());
        assertEquals(0, Cli.run(env, "var", "put", "-check-index", "15", "app/db", "k=v").code());
        assertEquals("namespace=default&cas=15", agent.last(PATH).query());
        Cli.Result bad = Cli.run(env, "var", "put", "-check-index", "x", "app/db", "k=v");
        assertEquals(1, bad.code());
        assertEquals("Error parsing check-index value \"x\": not parsable as uint64\n", bad.err());
    }

    @Test
    void valuesComeFromFilesStdinAndSpecificationsAndAnEmptyValueRemovesAnItem() throws Exception {
        agent.json(PATH, VAR);
        Files.writeString(dir.resolve("cert.pem"), "PEM\n");
        Files.writeString(dir.resolve("spec.nv.hcl"), """
                path = "app/db"
                modify_index = 15
                items {
                  user = "admin"
                  old  = "gone"
                }
                """);
        Cli.Result r = Cli.inDir(dir, env, "var", "put", "@spec.nv.hcl", "cert=@cert.pem", "old=");
        assertEquals(0, r.code(), r.err());
        JsonNode body = json(agent.last(PATH).body());
        assertEquals("PEM\n", body.get("Items").get("cert").asText());
        assertEquals("admin", body.get("Items").get("user").asText());
        assertFalse(body.get("Items").has("old"));
        assertEquals("namespace=default&cas=15", agent.last(PATH).query(), "the spec's index is the check index");

        Cli.Result stdin = Cli.withInput("from-stdin", env, "var", "put", "app/db", "secret=-");
        assertEquals(0, stdin.code(), stdin.err());
        assertEquals("from-stdin", json(agent.last(PATH).body()).get("Items").get("secret").asText());

        Cli.Result spec = Cli.withInput("{\"Path\": \"app/db\", \"Items\": {\"a\": \"b\"}}", env, "var", "put", "-");
        assertEquals(0, spec.code(), spec.err());
        assertEquals("b", json(agent.last(PATH).body()).get("Items").get("a").asText());
    }

    @Test
    void misuseIsReportedAsNomadDoes() {
        Cli.Result none = Cli.run(env, "var", "put");
        assertEquals(1, none.code());
        assertTrue(none.err().startsWith("Not enough arguments (expected >1, got 0)"), none.err());
        Cli.Result data = Cli.run(env, "var", "put", "app/db");
        assertTrue(data.err().startsWith("Must supply data"), data.err());
        Cli.Result in = Cli.run(env, "var", "put", "-in", "yaml", "app/db", "k=v");
        assertTrue(in.err().startsWith("Invalid value for \"-in\"; valid values are [hcl, json]"), in.err());
        Cli.Result out = Cli.run(env, "var", "put", "-out", "xml", "app/db", "k=v");
        assertTrue(out.err().startsWith("Invalid value for \"-out\""), out.err());
        Cli.Result pair = Cli.run(env, "var", "put", "app/db", "novalue");
        assertEquals("Failed to parse K=V data: invalid key/value pair \"novalue\": format must be key=value\n",
                pair.err());
        Cli.Result wildcard = Cli.run(env, "var", "put", "-namespace", "*", "app/db", "k=v");
        assertEquals("The wildcard namespace (\"*\") is not valid for this command.\n", wildcard.err());
        assertTrue(agent.requests().isEmpty(), "nothing was sent: " + agent.requests());

        agent.reply("/v1/var/a/../b", 400, "Path: must not contain \"..\"");
        Cli.Result dots = Cli.run(env, "var", "put", "a/../b", "k=v");
        assertEquals(1, dots.code());
        assertEquals("Error creating variable: Unexpected response code: 400 (Path: must not contain \"..\")\n",
                dots.err());
        assertEquals("/v1/var/a/../b", agent.requests().get(0).path(), "sent as %2E%2E, decoded by the agent");
    }

    @Test
    void getPrintsATableOneItemOrNotFound() {
        agent.json(PATH, VAR);
        Cli.Result table = Cli.run(env, "var", "get", "-out", "table", "app/db");
        assertEquals(0, table.code(), table.err());
        assertEquals("""
                Namespace   = default
                Path        = app/db
                Create Time = 2023-11-14T22:13:20Z
                Modify Time = 2023-11-14T22:14:20Z
                Check Index = 15

                Items
                pass = s3cret
                user = admin
                """, table.out());
        Cli.Result item = Cli.run(env, "var", "get", "-item", "pass", "app/db");
        assertEquals("s3cret", item.out());
        Cli.Result missingItem = Cli.run(env, "var", "get", "-item", "nope", "app/db");
        assertEquals(1, missingItem.code());
        assertEquals("Variable does not contain \"nope\" item\n", missingItem.err());
        agent.reply(PATH, 404, "variable not found");
        Cli.Result missing = Cli.run(env, "var", "get", "app/db");
        assertEquals(1, missing.code());
        assertEquals("Variable not found\n", missing.err());
        assertEquals("namespace=default", agent.last(PATH).query());
    }

    @Test
    void listPrintsMetadataAndTheNextPageToken() throws Exception {
        agent.json("/v1/vars", """
                [{"Namespace":"default","Path":"app/db","CreateIndex":12,"CreateTime":1700000000000000000,
                  "ModifyIndex":15,"ModifyTime":1700000060000000000},
                 {"Namespace":"default","Path":"app/cache","CreateIndex":16,"CreateTime":1700000000000000000,
                  "ModifyIndex":16,"ModifyTime":1700000000000000000}]""");
        Cli.Result r = Cli.run(env, "var", "list", "app/");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("Namespace  Path       Last Updated", "default    app/cache  2023-11-14T22:13:20Z",
                "default    app/db     2023-11-14T22:14:20Z"), r.outLines());
        assertEquals("namespace=default&prefix=app%2F", agent.last("/v1/vars").query());
        Cli.Result quiet = Cli.run(env, "var", "list", "-q");
        assertEquals(List.of("app/db", "app/cache"), quiet.outLines());
        Cli.Result asJson = Cli.run(env, "var", "list", "-json", "-per-page", "2");
        assertEquals(2, json(asJson.out()).get("Data").size());
        assertTrue(json(asJson.out()).has("QueryMeta"));
        assertEquals("namespace=default&per_page=2", agent.last("/v1/vars").query());

        agent.json("/v1/vars", "[]");
        assertEquals("No matching variables found\n", Cli.run(env, "var", "list").out());
    }

    @Test
    void purgeDeletesWithAnOptionalCheckIndex() {
        agent.json(PATH, "");
        Cli.Result r = Cli.run(env, "var", "purge", "app/db");
        assertEquals(0, r.code(), r.err());
        assertEquals("Successfully purged variable \"app/db\"!\n", r.out());
        assertEquals("DELETE", agent.last(PATH).method());
        assertEquals("namespace=default", agent.last(PATH).query());
        assertEquals(0, Cli.run(env, "var", "purge", "-check-index", "15", "app/db").code());
        assertEquals("namespace=default&cas=15", agent.last(PATH).query());
        agent.reply(PATH, 409, VAR);
        Cli.Result conflict = Cli.run(env, "var", "purge", "-check-index", "3", "app/db");
        assertEquals(1, conflict.code());
        assertTrue(conflict.err().contains("check-index (3) does not match the server-side index (15)"));
        Cli.Result bad = Cli.run(env, "var", "purge", "-check-index", "-1", "app/db");
        assertEquals("Invalid -check-index value \"-1\": not parsable as uint64\n", bad.err());
    }

    @Test
    void initWritesAnExampleOnceAndItParses() throws Exception {
        Cli.Result r = Cli.inDir(dir, env, "var", "init");
        assertEquals(0, r.code(), r.err());
        assertEquals("Example variable specification written to spec.nv.hcl\n", r.out());
        assertTrue(Files.readString(dir.resolve("spec.nv.hcl")).contains("items {"));
        Cli.Result again = Cli.inDir(dir, env, "var", "init");
        assertEquals(1, again.code());
        assertEquals("File \"spec.nv.hcl\" already exists\n", again.err());
        assertEquals(0, Cli.inDir(dir, env, "var", "init", "-out", "json").code());
        assertEquals("value 1", json(Files.readString(dir.resolve("spec.nv.json"))).get("Items").get("key1")
                .asText());

        // The example is a valid specification for var put.
        agent.json("/v1/var/cfg", VAR);
        Cli.Result put = Cli.inDir(dir, env, "var", "put", "cfg", "@spec.nv.hcl");
        assertEquals(0, put.code(), put.err());
        assertEquals("value 2", json(agent.last("/v1/var/cfg").body()).get("Items").get("key2").asText());
    }

    @Test
    void lockHoldsTheLockWhileTheCommandRunsThenReleasesIt() throws Exception {
        String locked = VAR.replace("\"Items\"", "\"Lock\":{\"ID\":\"lock-1\",\"TTL\":\"15s\",\"LockDelay\":\"15s\"},"
                + "\"Items\"");
        agent.json(PATH + "?namespace=default&lock-acquire=true", locked);
        agent.json(PATH + "?namespace=default&lock-release=true", VAR);
        Cli.Result r = Cli.run(env, "var", "lock", "-ttl", "10s", "app/db", "echo", "locked", "-n");
        assertEquals(0, r.code(), r.err());
        assertEquals("locked -n\n", r.out());
        List<FakeAgent.Request> calls = agent.requests();
        assertEquals(2, calls.size(), calls.toString());
        assertTrue(calls.get(0).query().endsWith("lock-acquire=true"));
        assertEquals("10s", json(calls.get(0).body()).get("Lock").get("TTL").asText());
        assertTrue(calls.get(1).query().endsWith("lock-release=true"));
        assertEquals("lock-1", json(calls.get(1).body()).get("Lock").get("ID").asText());

        Cli.Result failing = Cli.run(env, "var", "lock", "-shell=false", "app/db", "false");
        assertEquals(1, failing.code());
        assertEquals("Lock error:exit status 1\n", failing.err());
    }

    @Test
    void aLostLockStopsTheCommand() {
        String locked = VAR.replace("\"Items\"", "\"Lock\":{\"ID\":\"lock-1\",\"TTL\":\"10s\",\"LockDelay\":\"15s\"},"
                + "\"Items\"");
        agent.json(PATH + "?namespace=default&lock-acquire=true", locked);
        agent.reply(PATH + "?namespace=default&lock-renew=true", 409, VAR);
        long started = System.nanoTime();
        // The first renewal, half a TTL in, finds the lock gone: the command is stopped long before its 60 s.
        Cli.Result r = Cli.run(env, "var", "lock", "-ttl", "10s", "app/db", "sleep", "60");
        long took = (System.nanoTime() - started) / 1_000_000;
        assertEquals(1, r.code());
        assertTrue(r.err().contains("Lock error:lock lost: the renewal was refused (409)"), r.err());
        assertTrue(took < 20_000, "stopped after " + took + " ms");
        assertTrue(agent.requests().stream().anyMatch(q -> q.query().endsWith("lock-renew=true")));
        assertTrue(agent.requests().stream().noneMatch(q -> q.query().endsWith("lock-release=true")),
                "a lost lock is not released");
    }

    @Test
    void lockWithEarlyReturnGivesUpWhenHeld() {
        agent.reply(PATH + "?namespace=default&lock-acquire=true", 409, VAR);
        Cli.Result r = Cli.run(env, "var", "lock", "-early-return", "app/db", "echo", "never");
        assertEquals(1, r.code());
        assertEquals("", r.out());
        assertTrue(r.err().startsWith("Lock error:"), r.err());
        Cli.Result few = Cli.run(env, "var", "lock", "app/db");
        assertEquals("Not enough arguments (expected >2, got 1)\n", few.err());
    }
}
