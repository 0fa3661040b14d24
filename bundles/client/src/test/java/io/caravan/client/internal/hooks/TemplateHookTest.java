package io.caravan.client.internal.hooks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.caravan.api.endpoint.NodeEndpoint.TaskServices;
import io.caravan.api.endpoint.NodeEndpoint.TaskVariable;
import io.caravan.api.endpoint.NodeEndpoint.TaskVariables;
import io.caravan.api.model.Allocation;
import io.caravan.api.model.ServiceRegistration;
import io.caravan.api.model.TaskEvent;
import io.caravan.client.internal.alloc.TaskEvents;
import io.caravan.client.internal.testing.Fixtures;
import io.caravan.plugin.api.driver.ExecResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rendering, confinement, env = true, missing keys and variables, and change_mode on a change of data. */
class TemplateHookTest {
    @TempDir
    Path dir;

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final FakeSource source = new FakeSource();
    private final List<TaskEvent> events = new CopyOnWriteArrayList<>();
    private final List<String> actions = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    /** Variables and services in a map: a blocking query answers once the index passes minIndex. */
    static final class FakeSource implements TemplateSource {
        final Map<String, Map<String, String>> vars = new HashMap<>();
        final List<ServiceRegistration> services = new ArrayList<>();
        final List<Runnable> waiting = new ArrayList<>();
        long index = 1;

        synchronized void put(String path, Map<String, String> items) {
            vars.put(path, items);
            index++;
            List<Runnable> wake = new ArrayList<>(waiting);
            waiting.clear();
            wake.forEach(Runnable::run);
        }

        @Override
        public synchronized CompletionStage<TaskVariables> variables(Allocation alloc, String task, List<String> paths,
                List<String> prefixes, long minIndex, Duration maxWait) {
            CompletableFuture<TaskVariables> out = new CompletableFuture<>();
            Runnable answer = () -> {
                synchronized (this) {
                    List<TaskVariable> found = new ArrayList<>();
                    paths.stream().filter(vars::containsKey).forEach(p -> found.add(
                            new TaskVariable("default", p, vars.get(p), 1, 0, index, 0)));
                    out.complete(new TaskVariables(found, Map.of(), index));
                }
            };
            if (index > minIndex) {
                answer.run();
            } else {
                waiting.add(answer);
            }
            return out;
        }

        @Override
        public synchronized CompletionStage<TaskServices> services(Allocation alloc, List<String> names, long minIndex,
                                                                   Duration maxWait) {
            if (index <= minIndex) {
                return new CompletableFuture<>(); // no service changes in these tests
            }
            return CompletableFuture.completedFuture(new TaskServices(services.stream()
                    .filter(r -> names.isEmpty() || names.contains(r.serviceName())).toList(), index));
        }
    }

    @SafeVarargs
    private TaskHookContext context(Map<String, Object>... templates) throws IOException {
        Map<String, Object> task = Fixtures.shTask("t", "true");
        task.put("Templates", List.of(templates));
        task.put("Env", Map.of("GREETING", "hi"));
        Allocation alloc = Fixtures.alloc("n1", "job", "service", Map.of(), task);
        TaskHookContext ctx = new TaskHookContext(alloc, alloc.job().taskGroups().get(0).tasks().get(0), null,
                AllocDir.of(dir, alloc.id()), new TaskEvents(Clock.systemUTC()), events::add);
        ctx.env(Map.of("GREETING", "hi", "NOMAD_TASK_NAME", "t"));
        Files.createDirectories(ctx.taskDir());   // as the task_dir hook leaves it
        ctx.control(new TaskControl() {
            @Override
            public boolean restart(TaskEvent event) {
                events.add(event);
                actions.add("restart");
                return true;
            }

            @Override
            public void signal(String signal, TaskEvent event) {
                events.add(event);
                actions.add("signal " + signal);
            }

            @Override
            public ExecResult exec(List<String> argv, Duration timeout) {
                actions.add("exec " + argv);
                return new ExecResult(0, new byte[0], new byte[0]);
            }

            @Override
            public void kill(TaskEvent event) {
                events.add(event);
                actions.add("kill");
            }

            @Override
            public boolean stopping() {
                return false;
            }
        });
        return ctx;
    }

    private static Map<String, Object> template(String data, String dest, Object... more) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("EmbeddedTmpl", data);
        t.put("DestPath", dest);
        t.put("ChangeMode", "restart");
        t.put("Splay", 0);
        t.put("Perms", "0640");
        t.put("Wait", Map.of("Min", 0, "Max", 1_000_000_000L));
        for (int i = 0; i < more.length; i += 2) {
            t.put((String) more[i], more[i + 1]);
        }
        return t;
    }

    private TemplateHook hook() {
        return new TemplateHook(source, scheduler, Runnable::run, Clock.systemUTC(), new Random(1), false);
    }

    @Test
    void rendersVariablesServicesAndEnvIntoTheTaskDir() throws Exception {
        source.put("nomad/jobs/job", Map.of("password", "s3cret", "user", "app"));
        source.services.add(new ServiceRegistration("id1", "db", "default", "n1", "dc1", "other", "a1",
                List.of("primary"), "10.0.0.5", 5432, 1, 1));
        TaskHookContext ctx = context(template("""
                {{ with nomadVar "nomad/jobs/job" }}password={{ .password }} items={{ len .Items }}{{ end }}
                {{ range nomadService "db" }}db={{ .Address }}:{{ .Port }} {{ .ID }}{{ end }}
                {{ range nomadService "primary.db" }}tagged={{ .Name }}{{ end }}
                {{ range nomadServices }}{{ .Name }}{{ .Tags }}{{ end }}
                exists={{ nomadVarExists "nomad/jobs/job" }} {{ nomadVarExists "nomad/jobs/job/g" }}
                greeting={{ env "GREETING" }}""", "/local/app.conf"));
        TemplateHook hook = hook();
        hook.prestart(ctx);
        Path file = ctx.taskDir().resolve("local/app.conf");
        assertEquals("""
                password=s3cret items=2
                db=10.0.0.5:5432 id1
                tagged=db
                db[primary]
                exists=true false
                greeting=hi""", Files.readString(file));
        assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        hook.stop(ctx);
    }

    @Test
    void destinationsThatEscapeTheAllocationAreRefused() throws Exception {
        IOException up = assertThrows(IOException.class,
                () -> hook().prestart(context(template("x", "../../../escape"))));
        assertTrue(up.getMessage().contains("escapes the allocation directory"), up.getMessage());

        Path outside = Files.createDirectories(dir.resolve("outside"));
        TaskHookContext ctx = context(template("x", "link/x"));
        Files.createSymbolicLink(ctx.taskDir().resolve("link"), outside);
        assertThrows(IOException.class, () -> hook().prestart(ctx));
        assertFalse(Files.exists(outside.resolve("x")));

        // the allocation's shared directory is inside, as in Nomad
        TaskHookContext shared = context(template("shared", "../alloc/shared.txt"));
        hook().prestart(shared);
        assertEquals("shared", Files.readString(shared.allocDir().shared().resolve("shared.txt")));
    }

    @Test
    void envTemplatesJoinTheTaskEnvironment() throws Exception {
        TaskHookContext ctx = context(template("# comment\nexport DB_USER=app\nDB_PASS=\"p w\"\nGREETING=hello\n",
                "secrets/env", "Envvars", true));
        hook().prestart(ctx);
        assertEquals("app", ctx.env().get("DB_USER"));
        assertEquals("p w", ctx.env().get("DB_PASS"));
        assertEquals("hello", ctx.env().get("GREETING"));
        assertEquals("t", ctx.env().get("NOMAD_TASK_NAME"));
    }

    @Test
    void aMissingKeyFailsOnlyWhenAsked() throws Exception {
        source.put("nomad/jobs/job", Map.of("a", "1"));
        TaskHookContext lenient = context(template("[{{ with nomadVar \"nomad/jobs/job\" }}{{ .b }}{{ end }}]",
                "local/a"));
        hook().prestart(lenient);
        assertEquals("[]", Files.readString(lenient.taskDir().resolve("local/a")));

        Exception e = assertThrows(Exception.class, () -> hook().prestart(context(
                template("{{ with nomadVar \"nomad/jobs/job\" }}{{ .b }}{{ end }}", "local/b", "ErrMissingKey", true))));
        assertTrue(e.getMessage().contains("map has no entry for key \"b\""), e.getMessage());
    }

    @Test
    void aMissingVariableHoldsTheStartUntilItExists() throws Exception {
        TaskHookContext ctx = context(template("{{ with nomadVar \"nomad/jobs/job\" }}{{ .v }}{{ end }}", "local/v"));
        scheduler.schedule(() -> source.put("nomad/jobs/job", Map.of("v", "late")), 300,
                java.util.concurrent.TimeUnit.MILLISECONDS);
        hook().prestart(ctx);
        assertEquals("late", Files.readString(ctx.taskDir().resolve("local/v")));
        assertTrue(events.stream().anyMatch(e -> e.displayMessage().startsWith("Missing: nomad.var.block("
                + "nomad/jobs/job@default)")), events.toString());
    }

    @Test
    void aChangedVariableReRendersAndActsOnChangeMode() throws Exception {
        source.put("nomad/jobs/job", Map.of("v", "1"));
        TaskHookContext ctx = context(
                template("{{ with nomadVar \"nomad/jobs/job\" }}{{ .v }}{{ end }}", "local/restart"),
                template("{{ with nomadVar \"nomad/jobs/job\" }}{{ .v }}{{ end }}", "local/signal",
                        "ChangeMode", "signal", "ChangeSignal", "SIGHUP"),
                template("static", "local/noop", "ChangeMode", "noop"));
        TemplateHook hook = hook();
        hook.prestart(ctx);
        assertEquals("1", Files.readString(ctx.taskDir().resolve("local/restart")));
        source.put("nomad/jobs/job", Map.of("v", "2"));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (actions.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals("2", Files.readString(ctx.taskDir().resolve("local/restart")));
        assertEquals("2", Files.readString(ctx.taskDir().resolve("local/signal")));
        assertEquals(List.of("restart"), actions);   // one restart covers the signal too, as in Nomad
        assertTrue(events.stream().anyMatch(e -> e.displayMessage()
                .equals("Template with change_mode restart re-rendered")), events.toString());
        hook.stop(ctx);
    }

    @Test
    void signalAndScriptModes() throws Exception {
        source.put("nomad/jobs/job", Map.of("v", "1"));
        TaskHookContext ctx = context(
                template("{{ with nomadVar \"nomad/jobs/job\" }}{{ .v }}{{ end }}", "local/signal",
                        "ChangeMode", "signal", "ChangeSignal", "SIGHUP"),
                template("{{ with nomadVar \"nomad/jobs/job\" }}{{ .v }}{{ end }}", "local/script",
                        "ChangeMode", "script", "ChangeScript", Map.of("Command", "/bin/reload", "Args", List.of("-q"),
                                "Timeout", 1_000_000_000L, "FailOnError", false)));
        TemplateHook hook = hook();
        hook.prestart(ctx);
        source.put("nomad/jobs/job", Map.of("v", "2"));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (actions.size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(List.of("signal SIGHUP", "exec [/bin/reload, -q]"), actions);
        assertTrue(events.stream().anyMatch(e -> e.displayMessage().equals("Template re-rendered")), events.toString());
        hook.stop(ctx);
    }

    @Test
    void aSourceFromTheTaskDirIsRenderedAndAFailedAttemptRendersOnTheNext() throws Exception {
        Map<String, Object> t = template(null, "local/out.txt", "SourcePath", "local/in.tpl");
        TaskHookContext ctx = context(t);
        TemplateHook hook = hook();
        IOException missing = assertThrows(IOException.class, () -> hook.prestart(ctx));
        assertTrue(missing.getMessage().contains("local/in.tpl"), missing.getMessage());
        Files.createDirectories(ctx.taskDir().resolve("local"));
        Files.writeString(ctx.taskDir().resolve("local/in.tpl"), "task={{ env \"NOMAD_TASK_NAME\" }}");
        hook.prestart(ctx);   // the restart policy's next attempt
        assertEquals("task=t", Files.readString(ctx.taskDir().resolve("local/out.txt")));
        hook.stop(ctx);
    }
}
