package io.caravan.driver.java.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.caravan.driver.java.internal.JavaRuntime.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class JavaRuntimeTest {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            OpenJDK 17 (Debian 12) | openjdk version "17.0.15" 2025-04-15\\nOpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1)\\nOpenJDK 64-Bit Server VM (build 17.0.15+6-Debian-1deb12u1, mixed mode, sharing)\\n | 17.0.15 | OpenJDK Runtime Environment (build 17.0.15+6-Debian-1deb12u1) | OpenJDK 64-Bit Server VM (build 17.0.15+6-Debian-1deb12u1, mixed mode, sharing)
            Temurin 25             | openjdk version "25" 2025-09-16 LTS\\nOpenJDK Runtime Environment Temurin-25+36 (build 25+36-LTS)\\nOpenJDK 64-Bit Server VM Temurin-25+36 (build 25+36-LTS, mixed mode, sharing)\\n | 25 | OpenJDK Runtime Environment Temurin-25+36 (build 25+36-LTS) | OpenJDK 64-Bit Server VM Temurin-25+36 (build 25+36-LTS, mixed mode, sharing)
            Oracle 8               | java version "1.8.0_202"\\nJava(TM) SE Runtime Environment (build 1.8.0_202-b08)\\nJava HotSpot(TM) 64-Bit Server VM (build 25.202-b08, mixed mode)\\n | 1.8.0_202 | Java(TM) SE Runtime Environment (build 1.8.0_202-b08) | Java HotSpot(TM) 64-Bit Server VM (build 25.202-b08, mixed mode)
            _JAVA_OPTIONS first    | Picked up _JAVA_OPTIONS: -Xmx2048m -Xms512m\\nopenjdk version "11.0.1" 2018-10-16\\nOpenJDK Runtime Environment 18.9 (build 11.0.1+13)\\nOpenJDK 64-Bit Server VM 18.9 (build 11.0.1+13, mixed mode) | 11.0.1 | OpenJDK Runtime Environment 18.9 (build 11.0.1+13) | OpenJDK 64-Bit Server VM 18.9 (build 11.0.1+13, mixed mode)
            unquoted (CentOS 7)    | openjdk 11.0.11 2021-04-20 LTS\\r\\nOpenJDK Runtime Environment 18.9 (build 11.0.11+9-LTS)\\r\\nOpenJDK 64-Bit Server VM 18.9 (build 11.0.11+9-LTS, mixed mode, sharing)\\r\\n | 11.0.11 | OpenJDK Runtime Environment 18.9 (build 11.0.11+9-LTS) | OpenJDK 64-Bit Server VM 18.9 (build 11.0.11+9-LTS, mixed mode, sharing)
            OpenJ9 (more lines)    | openjdk version "1.8.0_192"\\nOpenJDK Runtime Environment (build 1.8.0_192-b12_openj9)\\nEclipse OpenJ9 VM (build openj9-0.11.0, JRE 1.8.0 Linux amd64-64-Bit Compressed References\\n20181107_95 (JIT enabled, AOT enabled)\\nOpenJ9 - 090ff9dcd | 1.8.0_192 | OpenJDK Runtime Environment (build 1.8.0_192-b12_openj9) | Eclipse OpenJ9 VM (build openj9-0.11.0, JRE 1.8.0 Linux amd64-64-Bit Compressed References
            """)
    void parsesJavaVersionAsNomadDoes(String name, String output, String version, String runtime, String vm) {
        String text = output.replace("\\r", "\r").replace("\\n", "\n");
        assertEquals(new Version(version, runtime, vm), JavaRuntime.parse(text), name);
    }

    @Test
    void unexpectedOutputGivesEmptyStrings() {
        assertEquals(Version.UNKNOWN, JavaRuntime.parse("unexpected java -version output"));
        assertEquals(Version.UNKNOWN, JavaRuntime.parse(""));
        assertEquals(new Version("no number here", "b", "c"), JavaRuntime.parse("no number here\nb\nc"));
    }

    @Test
    void attributesAreNomads() {
        JavaRuntime java = new JavaRuntime(Path.of("/opt/jdk/bin/java"), Path.of("/opt/jdk"),
                new Version("1.8.0_202", "rt", "vm"));
        assertEquals(Map.of("driver.java", "1", "driver.java.version", "1.8.0_202", "driver.java.runtime", "rt",
                "driver.java.vm", "vm"), java.attributes());
    }

    private Path fakeJava(Path home, String script) throws Exception {
        Path bin = Files.createDirectories(home.resolve("bin"));
        Path java = bin.resolve("java");
        Files.writeString(java, "#!/bin/sh\n" + script + "\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return java;
    }

    @Test
    void locatesJavaOnPathThenInJavaHomeResolvingLinks() throws Exception {
        Path real = fakeJava(tmp.resolve("jdk"), "exit 0");
        Path onPath = Files.createDirectories(tmp.resolve("path"));
        Files.createSymbolicLink(onPath.resolve("java"), real);
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        assertEquals(Optional.of(real.toRealPath()), JavaRuntime.locate(empty + ":" + onPath, null));
        assertEquals(Optional.of(real.toRealPath()), JavaRuntime.locate(empty.toString(), tmp.resolve("jdk").toString()));
        assertEquals(Optional.empty(), JavaRuntime.locate(empty.toString(), ""));
        assertEquals(Optional.empty(), JavaRuntime.locate(null, null));
    }

    @Test
    void probeRunsJavaVersionOnce() throws Exception {
        Path java = fakeJava(tmp.resolve("jdk8"), """
                printf '%s\\n' 'java version "1.8.0_202"' 'Java(TM) SE Runtime Environment (build 1.8.0_202-b08)' \
                  'Java HotSpot(TM) 64-Bit Server VM (build 25.202-b08, mixed mode)' >&2""");
        JavaRuntime runtime = JavaRuntime.probe(java).orElseThrow();
        assertEquals(new Version("1.8.0_202", "Java(TM) SE Runtime Environment (build 1.8.0_202-b08)",
                "Java HotSpot(TM) 64-Bit Server VM (build 25.202-b08, mixed mode)"), runtime.version());
        assertEquals(tmp.resolve("jdk8"), runtime.home());
        assertFalse(JavaRuntime.probe(fakeJava(tmp.resolve("broken"), "exit 1")).isPresent());
    }

    @Test
    void detectsTheHostsJava() {
        Optional<JavaRuntime> java = JavaRuntime.detect();
        org.junit.jupiter.api.Assumptions.assumeTrue(java.isPresent(), "no java on PATH or in JAVA_HOME");
        assertTrue(Files.isExecutable(java.get().binary()));
        assertTrue(java.get().binary().startsWith(java.get().home()));
        assertFalse(java.get().version().version().isEmpty(), java.get().toString());
    }
}
