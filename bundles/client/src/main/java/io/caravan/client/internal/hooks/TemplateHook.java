package io.caravan.client.internal.hooks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.caravan.api.model.RestartPolicy;
import io.caravan.api.model.Task;
import io.caravan.api.model.TaskGroup;
import io.caravan.api.model.Template;
import io.caravan.client.internal.alloc.TaskEvents;
import io.caravan.plugin.api.driver.ExecResult;
import io.caravan.template.ConsulFunctions;
import io.caravan.template.Functions;
import io.caravan.template.MissingKey;
import io.caravan.template.TemplateException;
import io.caravan.template.TemplateOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code template}: renders the task's templates before it starts (the start waits for the first render, and for
 * every variable a template reads to exist, as Nomad's does), then watches their data (one pair of blocking queries
 * per task, no thread held) and, when a render changes a file, acts on the templates' {@code change_mode}: restart,
 * signal, script or nothing, after the {@code wait} quiescence and a random {@code splay}. Destinations and sources
 * stay inside the allocation directory (symbolic links included). Templates with {@code env = true} are read as
 * {@code KEY=VALUE} lines into the task's environment, over the variables Nomad sets.
 */
public final class TemplateHook implements TaskHook.Prestart, TaskHook.Recover, TaskHook.Stop {
    /** Nomad's client defaults for a template's {@code wait}. */
    static final Duration WAIT_MIN = Duration.ofSeconds(5);
    static final Duration WAIT_MAX = Duration.ofMinutes(4);
    /** How long one blocking query waits on the servers. */
    static final Duration QUERY_WAIT = Duration.ofMinutes(5);
    /** How long the first render waits for a missing variable between checks that the task is still wanted. */
    static final Duration MISSING_POLL = Duration.ofSeconds(10);
    static final Duration FETCH_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    /** Renders in a row that may still discover new data to read, before the wants are taken as settled. */
    private static final int MAX_DISCOVERY = 10;
    private static final Logger LOG = LoggerFactory.getLogger(TemplateHook.class);

    private final TemplateSource source;
    private final ScheduledExecutorService scheduler;
    private final Executor workers;
    private final Clock clock;
    private final Random random;
    private final boolean root;
    private Watcher watcher;

    public TemplateHook(TemplateSource source, ScheduledExecutorService scheduler, Executor workers, Clock clock,
                        Random random) {
        this(source, scheduler, workers, clock, random, runsAsRoot());
    }

    TemplateHook(TemplateSource source, ScheduledExecutorService scheduler, Executor workers, Clock clock,
                 Random random, boolean root) {
        this.source = source;
        this.scheduler = scheduler;
        this.workers = workers;
        this.clock = clock;
        this.random = random;
        this.root = root;
    }

    @Override
    public String name() {
        return "template";
    }

    @Override
    public void prestart(TaskHookContext ctx) throws Exception {
        List<Template> templates = ctx.task().templates();
        if (templates.isEmpty()) {
            return;
        }
        Watcher w;
        synchronized (this) {
            if (watcher == null) {
                watcher = new Watcher(ctx);
            }
            w = watcher;
        }
        w.ctx = ctx;
        // A restart keeps what the watcher rendered unless restart { render_templates = true } asks for a new render.
        if (!w.rendered() || renderOnRestart(ctx)) {
            w.write(w.firstRender(), true);
        }
        w.applyEnv(ctx);
        w.watch();
    }

    @Override
    public void recovered(TaskHookContext ctx) {
        if (ctx.task().templates().isEmpty()) {
            return;
        }
        Watcher w;
        synchronized (this) {
            if (watcher == null) {
                watcher = new Watcher(ctx);
            }
            w = watcher;
        }
        w.ctx = ctx;
        workers.execute(() -> {
            try {
                w.write(w.render(), true);
            } catch (Exception e) {
                LOG.atWarn().addKeyValue("task", ctx.task().name()).addKeyValue("error", e.toString())
                        .log("template render after recovery failed");
            }
            w.watch();
        });
    }

    @Override
    public void stop(TaskHookContext ctx) {
        Watcher w;
        synchronized (this) {
            w = watcher;
            watcher = null;
        }
        if (w != null) {
            w.close();
        }
    }

    private static boolean renderOnRestart(TaskHookContext ctx) {
        RestartPolicy policy = ctx.task().restartPolicy();
        if (policy == null) {
            TaskGroup group = ctx.alloc().lookupTaskGroup();
            policy = group == null ? null : group.restartPolicy();
        }
        return policy != null && Boolean.TRUE.equals(policy.renderTemplates());
    }

    private static boolean runsAsRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | RuntimeException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    /** One task's templates: what they read, what was last written, and the queries that keep it current. */
    final class Watcher {
        private final Task task;
        private final List<Template> templates;
        private final TemplateData data;
        private final Map<Integer, String> written = new HashMap<>();
        private final Map<String, String> templateEnv = new LinkedHashMap<>();
        private volatile TaskHookContext ctx;
        private volatile boolean closed;
        private ScheduledFuture<?> pending;
        private long firstChange;
        private boolean ownerWarned;
        private boolean watchingVariables;
        private boolean rendered;
        private boolean watchingServices;

        Watcher(TaskHookContext ctx) {
            this.ctx = ctx;
            this.task = ctx.task();
            this.templates = task.templates();
            this.data = new TemplateData(source, ctx.alloc(), task.name());
        }

        /** Renders until every variable read exists; waits (bounded polls) while one is missing. */
        Map<Integer, String> firstRender() throws Exception {
            boolean told = false;
            while (true) {
                Set<String> missing = new LinkedHashSet<>();
                Map<Integer, String> out = render(missing);
                if (missing.isEmpty()) {
                    return out;
                }
                if (ctx.control().stopping()) {
                    throw new IllegalStateException("task stopped while its templates waited for "
                            + String.join(", ", missing));
                }
                if (!told) {
                    ctx.emit(events().hookMessage("Missing: " + String.join(", ", missing)));
                    told = true;
                }
                data.fetchVariables(data.varIndex(), MISSING_POLL).toCompletableFuture()
                        .get(MISSING_POLL.plus(FETCH_TIMEOUT).toMillis(), TimeUnit.MILLISECONDS);
            }
        }

        /** Whether every template has been written once (a later start attempt need not wait for them again). */
        synchronized boolean rendered() {
            return rendered;
        }

        Map<Integer, String> render() throws Exception {
            return render(new LinkedHashSet<>());
        }

        /** Every template's output, discovering and fetching what they read. */
        private Map<Integer, String> render(Set<String> missing) throws Exception {
            for (int round = 0; ; round++) {
                missing.clear();
                Map<Integer, String> out = new LinkedHashMap<>();
                Functions fns = data.functions(ConsulFunctions.create(ctx.env(), clock), missing);
                for (int i = 0; i < templates.size(); i++) {
                    out.put(i, renderOne(templates.get(i), fns));
                }
                if (!data.takeNewWants() || round >= MAX_DISCOVERY) {
                    return out;
                }
                data.fetchAll(FETCH_TIMEOUT);
            }
        }

        private String renderOne(Template t, Functions fns) throws IOException, TemplateException {
            String text = t.embeddedTmpl();
            if (t.sourcePath() != null && !t.sourcePath().isEmpty()) {
                Path src = confine(t.sourcePath(), "source");
                if (!Files.isRegularFile(src)) {
                    throw new IOException("template source " + t.sourcePath() + " does not exist");
                }
                text = Files.readString(src, StandardCharsets.UTF_8);
            }
            TemplateOptions options = TemplateOptions.defaults().withFunctions(fns)
                    .withDelims(t.leftDelim(), t.rightDelim())
                    .withMissingKey(Boolean.TRUE.equals(t.errMissingKey()) ? MissingKey.ERROR : MissingKey.ZERO);
            String name = t.destPath() == null ? "template" : t.destPath();
            return io.caravan.template.Template.parse(name, text == null ? "" : text, options).execute(Map.of());
        }

        /**
         * Writes each output that differs from the file (all of them when {@code force}); returns the indexes of the
         * templates whose file changed.
         */
        List<Integer> write(Map<Integer, String> out, boolean force) throws IOException {
            List<Integer> changed = new ArrayList<>();
            for (Map.Entry<Integer, String> e : out.entrySet()) {
                Template t = templates.get(e.getKey());
                String before;
                synchronized (this) {
                    before = written.get(e.getKey());
                }
                if (!force && e.getValue().equals(before)) {
                    continue;
                }
                if (!force && before != null && Boolean.TRUE.equals(t.once())) {
                    continue;   // once: rendered at the start only
                }
                Path dest = confine(t.destPath(), "destination");
                writeFile(t, dest, e.getValue());
                synchronized (this) {
                    written.put(e.getKey(), e.getValue());
                    rendered = written.size() == templates.size();
                }
                if (!e.getValue().equals(before)) {
                    changed.add(e.getKey());
                }
                if (Boolean.TRUE.equals(t.envvars())) {
                    synchronized (this) {
                        templateEnv.putAll(parseEnv(e.getValue()));
                    }
                }
            }
            return changed;
        }

        private void writeFile(Template t, Path dest, String content) throws IOException {
            Files.createDirectories(dest.getParent());
            Path tmp = Files.createTempFile(dest.getParent(), ".template-", ".tmp");
            try {
                Files.writeString(tmp, content, StandardCharsets.UTF_8);
                try {
                    Files.setPosixFilePermissions(tmp, permissions(t.perms()));
                } catch (UnsupportedOperationException e) {
                    // not a POSIX file system: the default permissions stay
                }
                owner(t, tmp);
                try {
                    Files.move(tmp, dest, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, dest, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        }

        private void owner(Template t, Path file) throws IOException {
            boolean wanted = t.uid() != null && t.uid() >= 0 || t.gid() != null && t.gid() >= 0;
            if (!wanted) {
                return;
            }
            if (!root) {
                boolean warn;
                synchronized (this) {
                    warn = !ownerWarned;
                    ownerWarned = true;
                }
                if (warn) {
                    ctx.emit(events().hookMessage("Template uid/gid not set: the client agent does not run as root"));
                }
                return;
            }
            if (t.uid() != null && t.uid() >= 0) {
                Files.setAttribute(file, "unix:uid", t.uid());
            }
            if (t.gid() != null && t.gid() >= 0) {
                Files.setAttribute(file, "unix:gid", t.gid());
            }
        }

        /** The environment with the {@code env = true} templates' variables over it, and the config interpolated anew. */
        void applyEnv(TaskHookContext target) {
            Map<String, String> extra;
            synchronized (this) {
                extra = new LinkedHashMap<>(templateEnv);
            }
            if (extra.isEmpty()) {
                return;
            }
            Map<String, String> env = new LinkedHashMap<>(target.env());
            env.putAll(extra);
            target.env(env);
            target.config(target.interpolator().interpolateMap(target.task().config()));
        }

        /** A path of the block, relative to the task directory (a leading / too), that stays in the allocation. */
        private Path confine(String path, String what) throws IOException {
            Path root = ctx.allocDir().root().toAbsolutePath().normalize();
            String relative = path.startsWith("/") ? path.substring(1) : path;
            Path resolved = ctx.taskDir().toAbsolutePath().normalize().resolve(relative).normalize();
            boolean inside = resolved.startsWith(root) && !resolved.equals(root);
            if (inside) {
                Path existing = resolved;
                while (existing != null && !Files.exists(existing, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    existing = existing.getParent();
                }
                inside = existing != null && existing.toRealPath().startsWith(root.toRealPath());
            }
            if (!inside) {
                throw new IOException("template " + what + " escapes the allocation directory: \"" + path + "\"");
            }
            return resolved;
        }

        // ---- watching ----------------------------------------------------------------------------------------

        /** Starts the queries for what the templates read (again after a render that found more to read). */
        void watch() {
            boolean vars;
            boolean services;
            synchronized (this) {
                vars = !watchingVariables && data.wantsVariables();
                services = !watchingServices && data.wantsServices();
                watchingVariables |= vars;
                watchingServices |= services;
            }
            if (vars) {
                watch("variables", () -> data.fetchVariables(data.varIndex(), QUERY_WAIT), Duration.ofSeconds(1));
            }
            if (services) {
                watch("services", () -> data.fetchServices(data.serviceIndex(), QUERY_WAIT), Duration.ofSeconds(1));
            }
        }

        /**
         * One blocking query after another on {@code fetch} (variables or services) until the task stops: a change
         * starts a render; a failed query is tried again after {@code backoff}, doubled each time up to the maximum.
         */
        private void watch(String what, Supplier<CompletionStage<Boolean>> fetch, Duration backoff) {
            if (closed) {
                return;
            }
            fetch.get().whenComplete((changed, error) -> {
                if (closed) {
                    return;
                }
                if (error != null) {
                    LOG.atDebug().addKeyValue("task", task.name()).addKeyValue("error", error.toString())
                            .log("template " + what + " query failed");
                    scheduler.schedule(() -> watch(what, fetch, min(backoff.multipliedBy(2), MAX_BACKOFF)),
                            backoff.toMillis(), TimeUnit.MILLISECONDS);
                    return;
                }
                if (changed) {
                    changed();
                }
                watch(what, fetch, Duration.ofSeconds(1));
            });
        }

        /** Data changed: render once it has been quiet for {@code wait.min}, or {@code wait.max} after the first. */
        private synchronized void changed() {
            if (closed) {
                return;
            }
            Duration min = WAIT_MIN;
            Duration max = WAIT_MAX;
            for (Template t : templates) {
                if (t.waitConfig() != null) {
                    min = t.waitConfig().min() != null ? t.waitConfig().min() : min;
                    max = t.waitConfig().max() != null ? t.waitConfig().max() : max;
                }
            }
            long now = System.nanoTime();
            if (pending == null) {
                firstChange = now;
            } else {
                pending.cancel(false);
            }
            long delay = Math.min(min.toNanos(), Math.max(0, firstChange + max.toNanos() - now));
            pending = scheduler.schedule(() -> workers.execute(this::rerender), delay, TimeUnit.NANOSECONDS);
        }

        private void rerender() {
            synchronized (this) {
                pending = null;
                if (closed) {
                    return;
                }
            }
            List<Integer> changed;
            try {
                changed = write(render(), false);
            } catch (TemplateException | IOException e) {
                // The template itself fails (a missing key, a bad source, a destination gone outside): as Nomad's.
                LOG.atWarn().addKeyValue("task", task.name()).addKeyValue("error", e.toString())
                        .log("template re-render failed");
                ctx.control().kill(events().killingFailed("Template failed: " + e.getMessage()));
                return;
            } catch (Exception e) {
                // The servers did not answer: the data stays as it was; the next change renders again.
                LOG.atWarn().addKeyValue("task", task.name()).addKeyValue("error", e.toString())
                        .log("template data could not be read; not re-rendered");
                return;
            }
            watch();
            if (!changed.isEmpty()) {
                react(changed);
            }
        }

        /** Nomad's order: one restart covers everything; otherwise each signal once, then the scripts. */
        private void react(List<Integer> changed) {
            boolean restart = false;
            Set<String> signals = new LinkedHashSet<>();
            List<Template> scripts = new ArrayList<>();
            long splay = 0;
            for (int i : changed) {
                Template t = templates.get(i);
                String mode = t.changeMode() == null ? Template.CHANGE_RESTART : t.changeMode();
                if (mode.equals(Template.CHANGE_NOOP)) {
                    continue;
                }
                splay = Math.max(splay, t.splay() == null ? 0 : t.splay().toMillis());
                switch (mode) {
                    case Template.CHANGE_SIGNAL -> signals.add(t.changeSignal());
                    case Template.CHANGE_SCRIPT -> scripts.add(t);
                    default -> restart = true;
                }
            }
            if (!restart && signals.isEmpty() && scripts.isEmpty()) {
                return;
            }
            boolean doRestart = restart;
            long delay = splay <= 0 ? 0 : (long) (random.nextDouble() * splay);
            scheduler.schedule(() -> workers.execute(() -> act(doRestart, signals, scripts)), delay,
                    TimeUnit.MILLISECONDS);
        }

        private void act(boolean restart, Set<String> signals, List<Template> scripts) {
            if (closed) {
                return;
            }
            TaskControl control = ctx.control();
            if (restart) {
                control.restart(events().restartSignal("Template with change_mode restart re-rendered"));
                return;
            }
            for (String signal : signals) {
                try {
                    control.signal(signal, events().signaling(signal, "Template re-rendered"));
                } catch (Exception e) {
                    control.kill(events().killingFailed("Template failed to send signals " + signals + ": "
                            + e.getMessage()));
                    return;
                }
            }
            for (Template t : scripts) {
                script(control, t);
            }
        }

        private void script(TaskControl control, Template t) {
            Template.ChangeScript cs = t.changeScript();
            List<String> argv = new ArrayList<>();
            argv.add(cs.command());
            argv.addAll(cs.args());
            Duration timeout = cs.timeout() == null || cs.timeout().isZero() ? Duration.ofSeconds(5) : cs.timeout();
            String failure;
            try {
                ExecResult r = control.exec(argv, timeout);
                if (r.exitCode() == 0) {
                    ctx.emit(events().hookMessage("Template successfully ran script " + cs.command()
                            + " with arguments: " + cs.args() + ". Exit code: 0"));
                    return;
                }
                failure = "Template ran script " + cs.command() + " with arguments " + cs.args()
                        + " on change but it exited with code code: " + r.exitCode();
            } catch (Exception e) {
                failure = "Template failed to run script " + cs.command() + " with arguments " + cs.args()
                        + ": " + e.getMessage();
            }
            if (Boolean.TRUE.equals(cs.failOnError())) {
                control.kill(events().killingFailed(failure));
            } else {
                ctx.emit(events().hookMessage(failure));
            }
        }

        private TaskEvents events() {
            return new TaskEvents(clock);
        }

        synchronized void close() {
            closed = true;
            if (pending != null) {
                pending.cancel(false);
                pending = null;
            }
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** Octal permissions ({@code "0644"}, {@code "600"}). */
    static Set<PosixFilePermission> permissions(String perms) {
        int mode = perms == null || perms.isEmpty() ? 0644 : Integer.parseInt(perms, 8);
        Set<PosixFilePermission> out = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] order = {PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
                PosixFilePermission.OTHERS_READ, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE,
                PosixFilePermission.GROUP_READ, PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
                PosixFilePermission.OWNER_READ};
        for (int bit = 0; bit < order.length; bit++) {
            if ((mode & (1 << bit)) != 0) {
                out.add(order[bit]);
            }
        }
        return out;
    }

    /**
     * A rendered {@code env = true} template as variables: {@code KEY=VALUE} lines (an {@code export} prefix,
     * blank lines and {@code #} comments allowed; single or double quotes around a value removed).
     */
    static Map<String, String> parseEnv(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("export ")) {
                line = line.substring("export ".length()).strip();
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            String key = line.substring(0, eq).strip();
            String value = line.substring(eq + 1).strip();
            if (value.length() >= 2 && (value.startsWith("\"") && value.endsWith("\"")
                    || value.startsWith("'") && value.endsWith("'"))) {
                value = value.substring(1, value.length() - 1);
            }
            out.put(key, value);
        }
        return out;
    }
}
