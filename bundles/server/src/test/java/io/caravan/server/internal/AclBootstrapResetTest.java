package io.caravan.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.caravan.acl.internal.PolicyCompilerService;
import io.caravan.api.CaravanException;
import io.caravan.api.ErrorCode;
import io.caravan.api.acl.AclToken;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiResponse;
import io.caravan.http.AsyncHandler;
import io.caravan.http.RouteTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nomad's bootstrap reset on the real routes and FSM: after a bootstrap, the index named in
 * {@code <data_dir>/server/acl-bootstrap-reset} allows exactly one more bootstrap; any other index, or none, does not.
 */
class AclBootstrapResetTest {
    @TempDir
    Path dataDir;

    private final ServerState state = new ServerState();
    private final AtomicLong entries = new AtomicLong();
    private final RaftWrites writes = JobLimitsTest.writes(state, entries);
    private final Map<String, AsyncHandler> routes = new HashMap<>();

    @AfterEach
    void stop() {
        state.deactivate();
    }

    /** An {@link AclConfig} with ACLs on and this test's data directory; every other key its default. */
    private AclConfig config() {
        return (AclConfig) Proxy.newProxyInstance(AclConfig.class.getClassLoader(), new Class<?>[] {AclConfig.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "annotationType" -> AclConfig.class;
                    case "acl_enabled" -> true;
                    case "data_dir" -> dataDir.toString();
                    case "toString" -> "AclConfig";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> method.getDefaultValue();
                });
    }

    private void register() {
        new AclRoutes(state.store(), writes, new PolicyCompilerService(), config(), Clock.systemUTC())
                .register(new RouteTable() {
                    public RouteTable routeAsync(String m, String pattern, ApiEndpoint endpoint, AsyncHandler h) {
                        routes.put(m + " " + pattern, h);
                        return this;
                    }
                });
    }

    private AclToken bootstrap() throws Exception {
        ApiResponse answer = routes.get("POST /v1/acl/bootstrap")
                .handle(new JobLimitsTest.Request("POST", "/v1/acl/bootstrap", null, null))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(200, answer.status());
        return (AclToken) answer.body();
    }

    private CaravanException refused() {
        try {
            bootstrap();
        } catch (CaravanException e) {
            return e;
        } catch (Exception e) {
            if (e.getCause() instanceof CaravanException c) {
                return c;
            }
            throw new AssertionError(e);
        }
        throw new AssertionError("a bootstrap was allowed");
    }

    private void resetFile(String content) throws Exception {
        Files.createDirectories(dataDir.resolve("server"));
        Files.writeString(dataDir.resolve("server").resolve("acl-bootstrap-reset"), content);
    }

    private long bootstrappedAt() {
        return state.store().snapshot().get(NomadTables.ACL_BOOTSTRAP, AclApply.Bootstrapped.KEY).orElseThrow()
                .index();
    }

    @Test
    void theResetIndexAllowsExactlyOneMoreBootstrap() throws Exception {
        register();
        AclToken first = bootstrap();
        assertEquals(AclToken.MANAGEMENT, first.type());
        long index = bootstrappedAt();
        CaravanException again = refused();
        assertEquals(ErrorCode.BAD_REQUEST, again.code());
        assertEquals("ACL bootstrap already done (reset index: " + index + ")", again.getMessage());

        resetFile(Long.toString(index + 7));
        assertEquals("ACL bootstrap already done (reset index: " + index + ")", refused().getMessage(),
                "a wrong index allows nothing");
        resetFile("not a number");
        CaravanException garbage = refused();
        assertEquals(ErrorCode.BAD_REQUEST, garbage.code());
        assertTrue(garbage.getMessage().contains("acl-bootstrap-reset"), garbage.getMessage());

        resetFile(index + "\n");   // as `echo` writes it
        AclToken second = bootstrap();
        assertEquals(AclToken.MANAGEMENT, second.type());
        assertNotEquals(first.secretId(), second.secretId());
        long newIndex = bootstrappedAt();
        assertTrue(newIndex > index);

        assertEquals("ACL bootstrap already done (reset index: " + newIndex + ")", refused().getMessage(),
                "the same file does not allow a third");
        assertEquals(2, state.store().snapshot().count(NomadTables.ACL_TOKENS), "both management tokens exist");
    }

    @Test
    void twoBootstrapsNamingTheSameResetIndexCannotBothWin() throws Exception {
        register();
        bootstrap();
        long index = bootstrappedAt();
        // Both passed the route's check; the log decides.
        Command.Result one = submit(new Command.AclBootstrap(token("one"), index));
        Command.Result two = submit(new Command.AclBootstrap(token("two"), index));
        assertEquals(0, one.errorCode(), one.error());
        assertEquals(400, two.errorCode());
        assertEquals("ACL bootstrap already done (reset index: " + one.index() + ")", two.error());
    }

    private Command.Result submit(Command command) {
        try {
            return writes.submit(command).toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            if (e.getCause() instanceof CaravanException c) {
                // RaftWrites turns a rejection into its exception: keep it as a result to compare.
                return Command.Result.rejected(0, c.code().httpStatus(), c.getMessage());
            }
            throw new CompletionException(e);
        }
    }

    private static AclToken token(String name) {
        return new AclToken("accessor-" + name, "secret-" + name, name, AclToken.MANAGEMENT, List.of(), List.of(),
                true, Clock.systemUTC().instant(), null, null, 0, 0);
    }
}
