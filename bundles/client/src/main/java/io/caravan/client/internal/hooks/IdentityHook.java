package io.caravan.client.internal.hooks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;

import io.caravan.api.endpoint.NodeEndpoint.IdentityRequest;
import io.caravan.api.endpoint.NodeEndpoint.SignedIdentity;
import io.caravan.api.model.Task;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code identity}: gives the task the workload identities it exposes. Before each start the servers sign them
 * ({@link IdentitySigner}); {@code file = true} writes the JWT to {@code secrets/nomad_token} (an alternate identity
 * {@code name}: {@code secrets/nomad_<name>.jwt}), mode 0600 and owned by {@code task.user} when set;
 * {@code env = true} sets {@code NOMAD_TOKEN} ({@code NOMAD_TOKEN_<name>}). An identity with a {@code ttl} is
 * signed again halfway to its expiry (plus jitter, as Nomad's client) on the client's shared timer, its file
 * rewritten and the task restarted or signalled as its {@code change_mode} says; a failed renewal is retried. After
 * an agent restart the re-attached task's expiring identities are renewed at once. Identities the task does not
 * expose are not signed: nothing in the task could read them.
 */
public final class IdentityHook implements TaskHook.Prestart, TaskHook.Recover, TaskHook.Stop {
    static final String DEFAULT_NAME = "default";
    static final String TOKEN_FILE = "nomad_token";
    static final String TOKEN_ENV = "NOMAD_TOKEN";
    /** How long a start waits for the servers to sign (the RPC itself is bounded shorter). */
    static final Duration SIGN_TIMEOUT = Duration.ofSeconds(30);
    /** Never renew sooner than this (Nomad's client keeps a minimum wait too), nor retry a failure sooner. */
    static final Duration MIN_WAIT = Duration.ofSeconds(5);
    static final Duration MAX_RETRY = Duration.ofMinutes(1);
    private static final Logger LOG = LoggerFactory.getLogger(IdentityHook.class);

    /** One identity the task exposes, as its block says. */
    record Exposed(String name, boolean env, boolean file, String changeMode, String changeSignal, boolean expires) {
        String fileName() {
            return DEFAULT_NAME.equals(name) ? TOKEN_FILE : "nomad_" + name + ".jwt";
        }

        String envName() {
            return DEFAULT_NAME.equals(name) ? TOKEN_ENV : TOKEN_ENV + "_" + name;
        }
    }

    private final IdentitySigner signer;
    private final ScheduledExecutorService timer;
    private final Clock clock;
    private final Random random;
    private final BiPredicate<String, String> restart;
    private final BiConsumer<String, String> signal;
    private final Duration minWait;
    private ScheduledFuture<?> renewal;
    private long generation;

    /**
     * {@code restart} (task, reason) and {@code signal} (task, signal) act on the task when a renewed identity's
     * {@code change_mode} asks for it.
     */
    public IdentityHook(IdentitySigner signer, ScheduledExecutorService timer, Clock clock, Random random,
                        BiPredicate<String, String> restart, BiConsumer<String, String> signal) {
        this(signer, timer, clock, random, restart, signal, MIN_WAIT);
    }

    IdentityHook(IdentitySigner signer, ScheduledExecutorService timer, Clock clock, Random random,
                 BiPredicate<String, String> restart, BiConsumer<String, String> signal, Duration minWait) {
        this.minWait = minWait;
        this.signer = signer;
        this.timer = timer;
        this.clock = clock;
        this.random = random;
        this.restart = restart;
        this.signal = signal;
    }

    @Override
    public String name() {
        return "identity";
    }

    /** The identities {@code task} exposes (by file or environment), the default one first. */
    static List<Exposed> exposed(Task task) {
        List<Exposed> out = new ArrayList<>();
        if (task.identity() != null) {
            add(out, task.identity(), DEFAULT_NAME);
        }
        if (task.identities() != null) {
            for (Map<String, Object> id : task.identities()) {
                add(out, id, null);
            }
        }
        return out;
    }

    private static void add(List<Exposed> out, Map<String, Object> block, String name) {
        boolean env = Boolean.TRUE.equals(block.get("Env"));
        boolean file = Boolean.TRUE.equals(block.get("File"));
        String n = name != null ? name : String.valueOf(block.getOrDefault("Name", DEFAULT_NAME));
        if ((env || file) && !n.isEmpty()) {
            Object ttl = block.get("TTL");
            boolean expires = ttl instanceof Number t ? t.longValue() > 0 : ttl != null && !ttl.toString().isEmpty();
            out.add(new Exposed(n, env, file, text(block.get("ChangeMode")), text(block.get("ChangeSignal")),
                    expires));
        }
    }

    private static String text(Object o) {
        return o == null ? "" : o.toString();
    }

    @Override
    public void prestart(TaskHookContext ctx) throws Exception {
        List<Exposed> wanted = exposed(ctx.task());
        cancelRenewal();
        if (wanted.isEmpty()) {
            return;
        }
        List<SignedIdentity> signed = sign(ctx, wanted).toCompletableFuture()
                .get(SIGN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        Map<String, String> env = new HashMap<>(ctx.env());
        for (int i = 0; i < wanted.size(); i++) {
            Exposed e = wanted.get(i);
            String jwt = signed.get(i).jwt();
            if (e.file()) {
                write(ctx, e, jwt);
            }
            if (e.env()) {
                env.put(e.envName(), jwt);
            }
        }
        ctx.env(env);
        // the token is part of the environment the config is interpolated against, as in Nomad
        ctx.config(ctx.interpolator().interpolateMap(ctx.task().config()));
        scheduleRenewal(ctx, wanted, signed);
    }

    /** Re-attached after an agent restart: the expiring identities are signed again now (the files stay). */
    @Override
    public void recovered(TaskHookContext ctx) {
        List<Exposed> wanted = exposed(ctx.task()).stream().filter(Exposed::expires).toList();
        if (!wanted.isEmpty()) {
            synchronized (this) {
                long gen = ++generation;
                renewal = timer.schedule(() -> renew(ctx, wanted, gen, minWait, false), 0, TimeUnit.MILLISECONDS);
            }
        }
    }

    @Override
    public void stop(TaskHookContext ctx) {
        cancelRenewal();
    }

    private synchronized void cancelRenewal() {
        generation++;
        if (renewal != null) {
            renewal.cancel(false);
            renewal = null;
        }
    }

    private java.util.concurrent.CompletionStage<List<SignedIdentity>> sign(TaskHookContext ctx,
                                                                            List<Exposed> wanted) {
        List<IdentityRequest> requests = wanted.stream()
                .map(e -> new IdentityRequest(ctx.alloc().id(), ctx.task().name(), e.name())).toList();
        return signer.sign(requests).thenApply(signed -> {
            if (signed.size() != requests.size()) {
                throw new IllegalStateException("the server signed " + signed.size() + " of " + requests.size()
                        + " identities");
            }
            return signed;
        });
    }

    /** Schedules the next renewal: halfway to the earliest expiry, plus up to a tenth of that as jitter. */
    private void scheduleRenewal(TaskHookContext ctx, List<Exposed> wanted, List<SignedIdentity> signed) {
        long earliest = signed.stream().mapToLong(SignedIdentity::expiresAtSeconds).filter(exp -> exp > 0).min()
                .orElse(0);
        if (earliest == 0) {
            return; // nothing expires: nothing to renew
        }
        long leftMs = earliest * 1000 - clock.millis();
        long wait = Math.max(leftMs / 2, minWait.toMillis());
        wait += (long) (random.nextDouble() * wait / 10);
        List<Exposed> expiring = wanted.stream().filter(Exposed::expires).toList();
        synchronized (this) {
            long gen = ++generation;
            renewal = timer.schedule(() -> renew(ctx, expiring, gen, minWait, true), wait, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Signs the task's expiring identities again and rewrites their files; {@code applyChange}: then acts on the task as the
     * renewed identities' {@code change_mode} asks (a restart's prestart signs and schedules anew).
     */
    private void renew(TaskHookContext ctx, List<Exposed> wanted, long gen, Duration retry, boolean applyChange) {
        sign(ctx, wanted).whenComplete((signed, error) -> {
            synchronized (this) {
                if (gen != generation) {
                    return; // the task stopped or restarted meanwhile
                }
            }
            if (error != null) {
                LOG.atWarn().addKeyValue("alloc_id", ctx.alloc().id()).addKeyValue("task", ctx.task().name())
                        .addKeyValue("error", error.toString()).log("renewing workload identities failed; retrying");
                Duration next = retry.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY : retry.multipliedBy(2);
                synchronized (this) {
                    if (gen == generation) {
                        renewal = timer.schedule(() -> renew(ctx, wanted, gen, next, applyChange),
                                retry.toMillis(), TimeUnit.MILLISECONDS);
                    }
                }
                return;
            }
            try {
                for (int i = 0; i < wanted.size(); i++) {
                    if (wanted.get(i).file()) {
                        write(ctx, wanted.get(i), signed.get(i).jwt());
                    }
                }
            } catch (IOException e) {
                LOG.atWarn().addKeyValue("task", ctx.task().name()).addKeyValue("error", e.toString())
                        .log("writing a renewed workload identity failed");
            }
            if (applyChange && changed(ctx, wanted)) {
                return; // restarted: its prestart signs and schedules anew
            }
            scheduleRenewal(ctx, wanted, signed);
        });
    }

    /** Applies the change modes; true when the task was restarted. */
    private boolean changed(TaskHookContext ctx, List<Exposed> wanted) {
        String task = ctx.task().name();
        if (wanted.stream().anyMatch(e -> "restart".equals(e.changeMode()))) {
            if (restart.test(task, "Workload identity renewed")) {
                return true;
            }
        }
        wanted.stream().filter(e -> "signal".equals(e.changeMode())).map(Exposed::changeSignal).distinct()
                .forEach(sig -> {
                    try {
                        signal.accept(task, sig);
                    } catch (RuntimeException e) {
                        LOG.atWarn().addKeyValue("task", task).addKeyValue("signal", sig)
                                .addKeyValue("error", e.toString()).log("signalling a renewed identity failed");
                    }
                });
        return false;
    }

    /** Writes the JWT beside its final name and moves it into place, so the task never reads half a token. */
    static void write(TaskHookContext ctx, Exposed e, String jwt) throws IOException {
        Path secrets = ctx.allocDir().taskSecrets(ctx.task().name());
        Files.createDirectories(secrets);
        Path target = secrets.resolve(e.fileName());
        Path tmp = secrets.resolve("." + e.fileName() + ".tmp");
        Files.writeString(tmp, jwt, StandardCharsets.US_ASCII);
        try {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException ignored) {
            // not a POSIX file system: the secrets directory's permissions are all there is
        }
        String user = ctx.task().user();
        if (user != null && !user.isEmpty()) {
            try {
                UserPrincipal owner = tmp.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user);
                Files.setOwner(tmp, owner);
            } catch (IOException | UnsupportedOperationException | SecurityException ex) {
                LOG.atWarn().addKeyValue("task", ctx.task().name()).addKeyValue("user", user)
                        .addKeyValue("error", ex.toString()).log("cannot give the identity file to the task's user");
            }
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
