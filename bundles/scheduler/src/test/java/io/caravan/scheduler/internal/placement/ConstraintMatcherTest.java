package io.caravan.scheduler.internal.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.caravan.scheduler.testing.InMemoryState;
import io.caravan.scheduler.testing.TestJobs;

class ConstraintMatcherTest {
    private static final EvalContext CTX = TestContexts.context(new InMemoryState(), TestJobs.job("j").build());

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("=", "linux", "linux", true),
                Arguments.of("==", "linux", "linux", true),
                Arguments.of("is", "linux", "windows", false),
                Arguments.of("=", null, "linux", false),
                Arguments.of("", "linux", "linux", true),
                Arguments.of("!=", "linux", "windows", true),
                Arguments.of("not", "linux", "linux", false),
                Arguments.of("!=", null, "linux", true),
                Arguments.of("<", "9", "10", true),
                Arguments.of("<", "a9", "a10", false),
                Arguments.of(">=", "2.5", "2.25", true),
                Arguments.of(">", "b", "a", true),
                Arguments.of("<=", null, "1", false),
                Arguments.of("regexp", "amd64", "^amd", true),
                Arguments.of("regexp", "arm64", "^amd", false),
                Arguments.of("regexp", "x", "[", false),
                Arguments.of("version", "1.2.3", ">= 1.2, < 2.0", true),
                Arguments.of("version", "2.0.0", ">= 1.2, < 2.0", false),
                Arguments.of("version", "v1.5", "~> 1.2", true),
                Arguments.of("version", "2.1", "~> 1.2", false),
                Arguments.of("version", "1.2.9", "~> 1.2.3", true),
                Arguments.of("version", "1.3.0", "~> 1.2.3", false),
                Arguments.of("version", "1.3.0-beta1", ">= 1.2", false),
                Arguments.of("semver", "1.3.0-beta1", ">= 1.2.0", true),
                Arguments.of("semver", "1.3.0-beta1", ">= 1.3.0", false),
                Arguments.of("semver", "1.3.0", ">= 1.2.0, < 1.4.0", true),
                Arguments.of("semver", "v1.3.0", ">= 1.2.0", false),
                Arguments.of("semver", "1.3.0-rc.2", "> 1.3.0-rc.1", true),
                Arguments.of("set_contains", "a,b,c", "a,c", true),
                Arguments.of("set_contains_all", "a, b", "a,d", false),
                Arguments.of("set_contains_any", "a,b", "d,b", true),
                Arguments.of("set_contains_any", "a,b", "d,e", false),
                Arguments.of("is_set", "x", null, true),
                Arguments.of("is_set", null, null, false),
                Arguments.of("is_not_set", null, null, true),
                Arguments.of("distinct_hosts", null, "true", true),
                Arguments.of("bogus", "a", "a", false));
    }

    @ParameterizedTest(name = "{1} {0} {2} → {3}")
    @MethodSource("rows")
    void operators(String op, String left, String right, boolean expected) {
        assertEquals(expected, ConstraintMatcher.matches(op, left, right, CTX));
    }
}
