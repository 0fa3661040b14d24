package io.caravan.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;

import io.caravan.cli.command.ConnectionOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Where requests go and what they carry: -address/-token/-region against CARAVAN_* and NOMAD_*. */
class ConnectionOptionsTest {
    private static final String SELF = "{\"config\":{},\"member\":{},\"stats\":{}}";

    private FakeAgent a;
    private FakeAgent b;
    private FakeAgent c;

    @BeforeEach
    void start() throws Exception {
        a = new FakeAgent().json("/v1/agent/self", SELF);
        b = new FakeAgent().json("/v1/agent/self", SELF);
        c = new FakeAgent().json("/v1/agent/self", SELF);
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
        c.close();
    }

    @Test
    void caravanAddrBeatsNomadAddr() {
        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", a.address(), "NOMAD_ADDR", b.address()), "agent-info");

        assertEquals(0, r.code(), r.err());
        assertEquals(1, a.requests().size());
        assertEquals(List.of(), b.requests());
    }

    @Test
    void nomadAddrIsTheFallback() {
        Cli.Result r = Cli.run(Map.of("NOMAD_ADDR", b.address()), "agent-info");

        assertEquals(0, r.code(), r.err());
        assertEquals(1, b.requests().size());
    }

    @Test
    void defaultAddressIsLocalAgent() {
        ConnectionOptions none = new ConnectionOptions();
        assertEquals("http://127.0.0.1:4646", none.resolve(context(Map.of())).address());
        assertNull(none.resolve(context(Map.of())).token());
        assertNull(none.resolve(context(Map.of())).region());
        // Blank values are unset, as in Nomad.
        assertEquals("http://127.0.0.1:4646", none.resolve(context(Map.of("CARAVAN_ADDR", " "))).address());
    }

    @Test
    void addressFlagBeatsBothEnvironmentVariablesInBothSpellings() {
        Map<String, String> env = Map.of("CARAVAN_ADDR", b.address(), "NOMAD_ADDR", c.address());

        assertEquals(0, Cli.run(env, "agent-info", "-address=" + a.address()).code());
        assertEquals(0, Cli.run(env, "agent-info", "-address", a.address()).code());
        assertEquals(0, Cli.run(env, "agent-info", "--address=" + a.address()).code());

        assertEquals(3, a.requests().size());
        assertEquals(List.of(), b.requests());
        assertEquals(List.of(), c.requests());
    }

    @Test
    void addressWithoutSchemeMeansHttp() {
        String hostPort = a.address().substring("http://".length());
        Cli.Result r = Cli.run(Map.of(), "agent-info", "-address=" + hostPort + "/");

        assertEquals(0, r.code(), r.err());
        assertEquals("/v1/agent/self", a.last("/v1/agent/self").path());
    }

    @Test
    void tokenFlagIsSentAsNomadHeaderAndBeatsEnvironment() {
        Cli.Result r = Cli.run(Map.of("CARAVAN_TOKEN", "env-secret"), "agent-info", "-address", a.address(),
                "-token=flag-secret");

        assertEquals(0, r.code(), r.err());
        assertEquals("flag-secret", a.last("/v1/agent/self").token());
    }

    @Test
    void tokenComesFromCaravanTokenThenNomadToken() {
        Cli.run(Map.of("CARAVAN_ADDR", a.address(), "CARAVAN_TOKEN", "caravan", "NOMAD_TOKEN", "nomad"),
                "agent-info");
        assertEquals("caravan", a.last("/v1/agent/self").token());

        Cli.run(Map.of("CARAVAN_ADDR", a.address(), "NOMAD_TOKEN", "nomad"), "agent-info");
        assertEquals("nomad", a.last("/v1/agent/self").token());

        Cli.run(Map.of("CARAVAN_ADDR", a.address()), "agent-info");
        assertNull(a.last("/v1/agent/self").token(), "no token, no header");
    }

    @Test
    void regionIsSentAsQueryParameter() {
        Cli.run(Map.of("CARAVAN_ADDR", a.address()), "agent-info", "-region", "eu-west");
        assertEquals("region=eu-west", a.last("/v1/agent/self").query());

        Cli.run(Map.of("CARAVAN_ADDR", a.address(), "NOMAD_REGION", "us"), "agent-info");
        assertEquals("region=us", a.last("/v1/agent/self").query());

        Cli.run(Map.of("CARAVAN_ADDR", a.address()), "agent-info");
        assertNull(a.last("/v1/agent/self").query());
    }

    @Test
    void connectionRefusedIsOneLineAndExitOne() throws Exception {
        String dead = "http://127.0.0.1:" + FakeAgent.closedPort();

        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", dead), "agent-info");

        assertEquals(1, r.code());
        assertEquals("", r.out());
        assertEquals(List.of("Error querying agent info: " + dead + ": connection refused"), r.errLines());
    }

    @Test
    void httpErrorShowsStatusAndBody() {
        a.reply("/v1/agent/self", 403, "Permission denied\n");

        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", a.address()), "agent-info");

        assertEquals(1, r.code());
        assertEquals(List.of("Error querying agent info: Unexpected response code: 403 (Permission denied)"),
                r.errLines());
    }

    @Test
    void undecodableBodyIsAnErrorNotAStackTrace() {
        a.json("/v1/agent/self", "<html>proxy</html>");

        Cli.Result r = Cli.run(Map.of("CARAVAN_ADDR", a.address()), "agent-info");

        assertEquals(1, r.code());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().startsWith("Error querying agent info: error decoding response"), r.err());
    }

    private static Context context(Map<String, String> env) {
        return new Context(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), env);
    }
}
