package io.caravan.driver.executor;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What to run and where: {@code command} is the task's argv, {@code env} the complete environment (nothing is inherited from the
 * agent), {@code stdout} and {@code stderr} files that are appended to, and {@code controlDir} a directory private
 * to the driver where the wrapper keeps its pid and exit files. {@code user}, if not empty, is who the command runs
 * as (name or uid, with that user's groups); empty runs it as the agent's user. {@code isolation} goes in front
 * of the user switch and the command.
 */
public record LaunchSpec(List<String> command, Map<String, String> env, Path workDir, Path stdout, Path stderr,
                         Path controlDir, String user, Isolation isolation) {
    public LaunchSpec {
        command = List.copyOf(command);
        env = Map.copyOf(env);
        user = user == null ? "" : user;
        isolation = isolation == null ? Isolation.NONE : isolation;
        if (command.isEmpty()) {
            throw new IllegalArgumentException("command must not be empty");
        }
    }

    /** Runs as the agent's user. */
    public LaunchSpec(List<String> command, Map<String, String> env, Path workDir, Path stdout, Path stderr,
                      Path controlDir) {
        this(command, env, workDir, stdout, stderr, controlDir, "", Isolation.NONE);
    }

    /** Runs without isolation. */
    public LaunchSpec(List<String> command, Map<String, String> env, Path workDir, Path stdout, Path stderr,
                      Path controlDir, String user) {
        this(command, env, workDir, stdout, stderr, controlDir, user, Isolation.NONE);
    }
}
