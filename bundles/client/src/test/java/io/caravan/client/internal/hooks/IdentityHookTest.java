package io.caravan.client.internal.hooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import io.caravan.api.endpoint.NodeEndpoint.IdentityRequest;
import io.caravan.api.endpoint.NodeEndpoint.SignedIdentity;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.Node;
import io.caravan.client.internal.alloc.TaskEvents;
import io.caravan.client.internal.testing.Fixtures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The identity hook: files, environment, renewal and change modes, against a signer that counts its calls. */
class IdentityHookTest {
    @TempDir
    Path dir;

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final Node node = Fixtures.node("node-uuid-1", Map.of("kernel.name", "linux"), Map.of());
    private final List<List<IdentityRequest>> asked = new CopyOnWriteArrayList<>();
    private final List<String> signals = new CopyOnWriteArrayList<>();
    private final AtomicInteger round = new AtomicInteger();
    /** Signs "jwt-<name>-<round>"; the "vault" identity expires a second after it is signed. */
    private final IdentitySigner signer = requests -> {
        asked.add(requests);
        int r = round.incrementAndGet();
        long now = System.currentTimeMillis() / 1000;
        return CompletableFuture.completedFuture(requests.stream().map(q -> new SignedIdentity(q.allocId(),
                q.task(), q.identityName(), "jwt-" + q.identityName() + "-" + r,
                q.identityName().equals("vault") ? now + 1 : 0)).toList());
    };

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    private IdentityHook hook() {
        return new IdentityHook(signer, timer, Clock.systemUTC(), new Random(1), (task, reason) -> false,
                (task, signal) -> signals.add(task + ":" + signal), Duration.ofMillis(100));
    }

    private TaskHookContext context(Map<String, Object> task) throws Exception {
        Allocation alloc = Fixtures.alloc("n1", "web", "service", Map.of(), task);
        AllocDir allocDir = AllocDir.of(dir, alloc.id());
        new AllocDirHook().prerun(alloc, allocDir);
        TaskHookContext ctx = new TaskHookContext(alloc, alloc.job().taskGroups().get(0).tasks().get(0), node,
                allocDir, new TaskEvents(Clock.systemUTC()), e -> { });
        new TaskDirHook().prestart(ctx);
        new TaskEnvHook().prestart(ctx);
        return ctx;
    }

    @Test
    void exposedIdentitiesAreWrittenOwnerOnlyAndSetInTheEnvironment() throws Exception {
        Map<String, Object> task = Fixtures.shTask("server", "true");
        task.put("Identity", Map.of("Name", "default", "Env", true, "File", true));
        task.put("Identities", List.of(Map.of("Name", "vault", "File", true, "Env", true),
                Map.of("Name", "hidden", "Audience", List.of("x"))));
        TaskHookContext ctx = context(task);
        IdentityHook hook = hook();
        hook.prestart(ctx);
        hook.stop(ctx);

        assertEquals(List.of(new IdentityRequest(ctx.alloc().id(), "server", "default"),
                new IdentityRequest(ctx.alloc().id(), "server", "vault")), asked.get(0),
                "an identity the task does not expose is not signed");
        Path secrets = ctx.allocDir().taskSecrets("server");
        assertEquals("jwt-default-1", Files.readString(secrets.resolve("nomad_token")));
        assertEquals("jwt-vault-1", Files.readString(secrets.resolve("nomad_vault.jwt")));
        assertEquals("rw-------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(secrets.resolve("nomad_token"))));
        assertEquals("jwt-default-1", ctx.env().get("NOMAD_TOKEN"));
        assertEquals("jwt-vault-1", ctx.env().get("NOMAD_TOKEN_vault"));
        assertEquals("server", ctx.env().get("NOMAD_TASK_NAME"), "the task's environment is kept");
    }

    @Test
    void anExpiringIdentityIsRenewedItsFileRewrittenAndTheTaskSignalled() throws Exception {
        Map<String, Object> task = Fixtures.shTask("server", "true");
        task.put("Identities", List.of(Map.of("Name", "vault", "File", true, "TTL", 1_000_000_000L,
                "ChangeMode", "signal", "ChangeSignal", "SIGHUP")));
        TaskHookContext ctx = context(task);
        IdentityHook hook = hook();
        hook.prestart(ctx);
        Path file = ctx.allocDir().taskSecrets("server").resolve("nomad_vault.jwt");
        assertEquals("jwt-vault-1", Files.readString(file));

        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (signals.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals("server:SIGHUP", signals.get(0));
        assertFalse(Files.readString(file).equals("jwt-vault-1"), "the file holds the renewed token");

        hook.stop(ctx);
        int after = asked.size();
        Thread.sleep(1500);
        assertTrue(asked.size() <= after + 1, "no renewal after stop: " + asked.size() + " vs " + after);
    }

    @Test
    void aTaskThatExposesNothingNeedsNoServer() throws Exception {
        Map<String, Object> task = Fixtures.shTask("server", "true");
        task.put("Identity", Map.of("Name", "default"));
        TaskHookContext ctx = context(task);
        new IdentityHook(IdentitySigner.NONE, timer, Clock.systemUTC(), new Random(), (t, r) -> false,
                (t, s) -> { }).prestart(ctx);
        assertFalse(Files.exists(ctx.allocDir().taskSecrets("server").resolve("nomad_token")));
        assertFalse(ctx.env().containsKey("NOMAD_TOKEN"));
        assertTrue(new ArrayList<>(asked).isEmpty());
    }

    @Test
    void aReattachedTaskHasItsExpiringIdentitiesSignedAgainAtOnce() throws Exception {
        Map<String, Object> task = Fixtures.shTask("server", "true");
        task.put("Identity", Map.of("Name", "default", "File", true));
        task.put("Identities", List.of(Map.of("Name", "vault", "File", true, "TTL", 60_000_000_000L)));
        TaskHookContext ctx = context(task);
        IdentityHook hook = hook();
        hook.recovered(ctx);
        Path file = ctx.allocDir().taskSecrets("server").resolve("nomad_vault.jwt");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!Files.exists(file) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        hook.stop(ctx);
        assertEquals("jwt-vault-1", Files.readString(file));
        assertEquals(List.of(new IdentityRequest(ctx.alloc().id(), "server", "vault")), asked.get(0),
                "the default identity never expires: its file stays as it is");
        assertFalse(Files.exists(ctx.allocDir().taskSecrets("server").resolve("nomad_token")));
    }
}
