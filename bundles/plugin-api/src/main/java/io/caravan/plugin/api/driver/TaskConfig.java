package io.caravan.plugin.api.driver;

import java.nio.file.Path;
import java.util.Map;

/**
 * Everything a driver needs to start one task: the task's {@code config} block (already interpolated), its
 * environment, its directory inside the allocation, where its output goes, and its resource limits.
 */
public record TaskConfig(TaskId id, String jobId, Map<String, Object> config, Map<String, String> env, String user,
                         Path taskDir, Path stdoutPath, Path stderrPath, long cpuMhz, long memoryMb, long memoryMaxMb) {
    public TaskConfig {
        config = Map.copyOf(config);
        env = Map.copyOf(env);
    }
}
