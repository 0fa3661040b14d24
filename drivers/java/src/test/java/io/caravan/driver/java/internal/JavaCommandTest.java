package io.caravan.driver.java.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.caravan.plugin.api.driver.DriverException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class JavaCommandTest {
    private static final String JAVA = "/usr/lib/jvm/jdk/bin/java";

    static Stream<Arguments> table() {
        return Stream.of(
                Arguments.of("jar", Map.of("jar_path", "local/app.jar"),
                        List.of(JAVA, "-jar", "local/app.jar")),
                Arguments.of("class", Map.of("class", "Hello"),
                        List.of(JAVA, "Hello")),
                Arguments.of("class with class_path and args", Map.of("class", "com.example.Main",
                                "class_path", "local/classes:local/lib/dep.jar", "args", List.of("a", "b c")),
                        List.of(JAVA, "-cp", "local/classes:local/lib/dep.jar", "com.example.Main", "a", "b c")),
                Arguments.of("jar with jvm_options and args", Map.of("jar_path", "local/app.jar",
                                "jvm_options", List.of("-Xmx512m", "-Dk=v"), "args", List.of("--port", "8080")),
                        List.of(JAVA, "-Xmx512m", "-Dk=v", "-jar", "local/app.jar", "--port", "8080")),
                Arguments.of("everything, in Nomad's order", Map.of("jar_path", "app.jar", "class", "Main",
                                "class_path", "cp", "jvm_options", new String[] {"-Xss1m"}, "args", List.of(1, true)),
                        List.of(JAVA, "-Xss1m", "-cp", "cp", "-jar", "app.jar", "Main", "1", "true")),
                Arguments.of("no memory option is added", Map.of("class", "Main", "jvm_options", List.of()),
                        List.of(JAVA, "Main")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void argv(String name, Map<String, Object> config, List<String> argv) throws DriverException {
        assertEquals(argv, JavaCommand.of(config).argv(JAVA), name);
    }

    @Test
    void workDirIsKept() throws DriverException {
        assertEquals("/local", JavaCommand.of(Map.of("class", "Main", "work_dir", "/local")).workDir());
        assertEquals("", JavaCommand.of(Map.of("class", "Main")).workDir());
    }

    @Test
    void jarPathOrClassIsRequired() {
        for (Map<String, Object> config : List.<Map<String, Object>>of(Map.of(), Map.of("class_path", "x"),
                Map.of("jar_path", " ", "class", ""), Map.of("args", List.of("a")))) {
            DriverException e = assertThrows(DriverException.class, () -> JavaCommand.of(config));
            assertEquals("java: jar_path or class must be specified", e.getMessage());
        }
    }

    @Test
    void wrongTypesAreRefused() {
        assertEquals("java: config field \"jvm_options\" must be a list of strings", assertThrows(
                DriverException.class, () -> JavaCommand.of(Map.of("class", "M", "jvm_options", "-Xmx1g")))
                .getMessage());
        assertEquals("java: config field \"class\" must be a string", assertThrows(
                DriverException.class, () -> JavaCommand.of(Map.of("class", List.of("M")))).getMessage());
    }
}
