package io.caravan.driver.java.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.annotation.Annotation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import io.caravan.driver.executor.internal.WrapperProcessExecutor;
import io.caravan.plugin.api.driver.DriverException;
import io.caravan.plugin.api.driver.DriverHealth;
import io.caravan.plugin.api.driver.ExecResult;
import io.caravan.plugin.api.driver.ExitResult;
import io.caravan.plugin.api.driver.TaskConfig;
import io.caravan.plugin.api.driver.TaskHandle;
import io.caravan.plugin.api.driver.TaskId;
import io.caravan.plugin.api.driver.TaskStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real JVMs in real namespaces, chroot and cgroups: the runs need a healthy driver (Linux, root, cgroup v1, a java
 * on PATH or in JAVA_HOME) and are skipped otherwise; health without them is checked everywhere.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class JavaDriverTest {
    private static final TaskId ID = new TaskId("7a7a0000-test", "app");
    private static final String CGROUP_PARENT = "caravan-java-test";
    private static final String HELLO = """
            public class Hello {
                public static void main(String[] args) throws Exception {
                    if (args.length > 0 && args[0].equals("sleep")) {
                        System.out.println("sleeping");
                        Thread.sleep(60_000);
                    }
                    System.out.println("hello " + String.join(" ", args));
                    System.out.println(System.getProperty("greeting"));
                    System.out.println(System.getProperty("user.name"));
                    System.out.println(new java.io.File("/alloc/logs").isDirectory());
                    System.out.println(new java.io.File("/local/classes/Hello.class").isFile());
                    System.exit(3);
                }
            }
            """;

    @TempDir
    Path tmp;
    private Path taskDir;
    private Path logs;
    private final WrapperProcessExecutor executor = new WrapperProcessExecutor();
    private JavaDriver driver;

    static JavaConfig config() {
        return new JavaConfig() {
            @Override
            public String[] config_chroot_env() {
                return new String[] {"/bin", "/etc", "/lib", "/lib32", "/lib64", "/sbin", "/usr"};
            }

            @Override
            public String config_cgroup_parent() {
                return CGROUP_PARENT;
            }

            @Override
            public String config_default_user() {
                return "nobody";
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return JavaConfig.class;
            }
        };
    }

    @BeforeEach
    void setUp() throws Exception {
        driver = new JavaDriver(executor, config());
        Path allocDir = tmp.resolve("alloc-1");
        taskDir = allocDir.resolve("app");
        logs = allocDir.resolve("alloc/logs");
        Files.createDirectories(taskDir.resolve("local"));
        Files.createDirectories(logs);
        for (Path dir : List.of(tmp, allocDir, taskDir, allocDir.resolve("alloc"), logs, taskDir.resolve("local"))) {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    @AfterEach
    void cleanUp() {
        try {
            driver.destroy(ID, true);
        } catch (DriverException e) {
            // nothing left
        }
        executor.close();
    }

    @AfterAll
    static void removeParentCgroups() throws Exception {
        for (String controller : List.of("memory", "cpu")) {
            Files.deleteIfExists(Path.of("/sys/fs/cgroup", controller, CGROUP_PARENT)); // empty by now
        }
    }

    private void assumeHealthy() {
        DriverHealth health = driver.health();
        assumeTrue(health.state() == DriverHealth.State.HEALTHY, health.description());
    }

    private TaskConfig task(long memoryMb, Map<String, Object> config) {
        return new TaskConfig(ID, "example", config, Map.of("PATH", "/usr/bin:/bin"), "", taskDir,
                logs.resolve("app.stdout.0"), logs.resolve("app.stderr.0"), 250, memoryMb, 0);
    }

    private ExitResult exitOf(JavaDriver d) throws Exception {
        return d.awaitExit(ID).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    private String stdout() throws IOException {
        Path file = logs.resolve("app.stdout.0");
        return Files.exists(file) ? Files.readString(file) : "";
    }

    private String stderr() {
        try {
            return Files.readString(logs.resolve("app.stderr.0"));
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** Compiles {@link #HELLO} into {@code local/classes} with the compiler of the JVM running the test. */
    private Path compileHello() throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assumeTrue(javac != null, "no system Java compiler");
        Path src = Files.createDirectories(taskDir.resolve("local/src"));
        Path classes = Files.createDirectories(taskDir.resolve("local/classes"));
        Files.writeString(src.resolve("Hello.java"), HELLO);
        int rc = javac.run(null, null, null, "--release", "8", "-Xlint:-options", "-d", classes.toString(),
                src.resolve("Hello.java").toString());
        assertEquals(0, rc, "javac");
        for (Path dir : List.of(src, classes)) {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return classes.resolve("Hello.class");
    }

    @Test
    void undetectedWithoutJava() {
        int[] calls = {0};
        JavaDriver noJava = new JavaDriver(executor, config(), () -> {
            calls[0]++;
            return Optional.empty();
        });
        DriverHealth health = noJava.health();
        assertTrue(health.state() != DriverHealth.State.HEALTHY, health.toString());
        assertEquals(Map.of(), health.attributes());
        if (noJava.isolation().usable()) {
            assertEquals(new DriverHealth(DriverHealth.State.UNDETECTED, JavaDriver.NOT_FOUND, Map.of()), health);
            assertEquals(health, noJava.health());
            assertEquals(1, calls[0], "looked for again only after " + JavaDriver.RETRY_NANOS + " ns");
            DriverException e = assertThrows(DriverException.class, () -> noJava.start(task(64,
                    Map.of("class", "Hello"))));
            assertEquals("java: " + JavaDriver.NOT_FOUND, e.getMessage());
        } else {
            assertEquals(noJava.isolation().health(), health, "the host's reason (not root, no cgroup v1…) comes first");
        }
    }

    @Test
    void javaVersionRunsOnceAndIsCached() {
        int[] calls = {0};
        JavaDriver counted = new JavaDriver(executor, config(), () -> {
            calls[0]++;
            return JavaRuntime.detect();
        });
        assumeTrue(counted.isolation().usable(), counted.health().description());
        DriverHealth first = counted.health();
        assertEquals(first, counted.health());
        assertEquals(1, calls[0]);
        assumeTrue(first.state() == DriverHealth.State.HEALTHY, first.description());
        assertEquals("1", first.attributes().get("driver.java"));
        assertEquals(JavaRuntime.detect().orElseThrow().attributes(), first.attributes());
        assertFalse(first.attributes().containsKey("driver.exec"));
        assertEquals("chroot", counted.capabilities().fsIsolation());
    }

    @Test
    void startWithoutJarOrClassFails() {
        DriverException e = assertThrows(DriverException.class, () -> driver.start(task(64,
                Map.of("args", List.of("a")))));
        assertEquals("java: jar_path or class must be specified", e.getMessage());
    }

    @Test
    void runsAClassChrootedAsNobody() throws Exception {
        assumeHealthy();
        compileHello();
        driver.start(task(256, Map.of("class", "Hello", "class_path", "local/classes",
                "jvm_options", List.of("-Dgreeting=hi", "-Xmx64m"), "args", List.of("a", "b c"))));
        ExitResult exit = exitOf(driver);
        assertEquals(3, exit.exitCode(), this::stderr);
        assertEquals("hello a b c\nhi\nnobody\ntrue\ntrue\n", stdout(), this::stderr);
        long limit = Long.parseLong(Files.readString(Path.of("/sys/fs/cgroup/memory", CGROUP_PARENT,
                "7a7a0000-test.app", "memory.limit_in_bytes")).trim());
        assertEquals(256L * 1024 * 1024, limit);
        assertEquals(TaskStatus.State.EXITED, driver.inspect(ID).state());
        driver.destroy(ID, false);
        assertFalse(Files.exists(Path.of("/sys/fs/cgroup/memory", CGROUP_PARENT, "7a7a0000-test.app")));
    }

    @Test
    void runsAJar() throws Exception {
        assumeHealthy();
        Path hello = compileHello();
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "Hello");
        try (OutputStream out = Files.newOutputStream(taskDir.resolve("local/hello.jar"));
             JarOutputStream jar = new JarOutputStream(out, manifest)) {
            jar.putNextEntry(new JarEntry("Hello.class"));
            jar.write(Files.readAllBytes(hello));
            jar.closeEntry();
        }
        driver.start(task(256, Map.of("jar_path", "local/hello.jar", "jvm_options", List.of("-Dgreeting=jar"),
                "args", List.of("x"))));
        assertEquals(3, exitOf(driver).exitCode(), this::stderr);
        assertEquals("hello x\njar\nnobody\ntrue\ntrue\n", stdout(), this::stderr);
    }

    @Test
    void mountsAJdkOutsideTheChrootEnvironment() throws Exception {
        assumeHealthy();
        Path jdk = Files.createTempDirectory(Path.of("/var/tmp"), "caravan-fake-jdk");
        try {
            Path bin = Files.createDirectories(jdk.resolve("bin"));
            Path java = bin.resolve("java");
            Files.writeString(java, "#!/bin/sh\necho \"fake java $*\"; id -u\n");
            for (Path p : List.of(jdk, bin, java)) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
            JavaDriver fake = new JavaDriver(executor, config(), () -> Optional.of(new JavaRuntime(java, jdk,
                    new JavaRuntime.Version("99", "rt", "vm"))));
            assertEquals("99", fake.health().attributes().get("driver.java.version"));
            fake.start(task(64, Map.of("class", "Main", "args", List.of("a"))));
            assertEquals(0, exitOf(fake).exitCode(), this::stderr);
            assertEquals("fake java Main a\n65534\n", stdout());
            fake.destroy(ID, false);
        } finally {
            try (Stream<Path> files = Files.walk(jdk)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void recoveredStoppedAndExecedAfterAgentRestart() throws Exception {
        assumeHealthy();
        compileHello();
        TaskHandle handle = driver.start(task(256, Map.of("class", "Hello", "class_path", "/local/classes",
                "args", List.of("sleep"))));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!stdout().contains("sleeping")) {
            assertTrue(System.nanoTime() < deadline, this::stderr);
            Thread.sleep(20);
        }
        executor.close();
        WrapperProcessExecutor next = new WrapperProcessExecutor();
        try {
            JavaDriver recovered = new JavaDriver(next, config());
            recovered.recover(handle);
            assertEquals(TaskStatus.State.RUNNING, recovered.inspect(ID).state());
            ExecResult exec = recovered.exec(ID, List.of("/bin/sh", "-c", "id -u; test -e " + tmp
                    + " || echo chrooted"), Duration.ofSeconds(10));
            assertEquals("65534\nchrooted\n", new String(exec.stdout(), StandardCharsets.UTF_8),
                    new String(exec.stderr(), StandardCharsets.UTF_8));
            recovered.stop(ID, Duration.ofSeconds(10), "SIGTERM");
            ExitResult exit = exitOf(recovered);
            assertEquals(143, exit.exitCode(), exit.toString());
            recovered.destroy(ID, false);
        } finally {
            next.close();
        }
    }
}
